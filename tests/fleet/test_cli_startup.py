"""The command starts fast: importing the CLI and building its parser must not import papermill or nbconvert."""

from __future__ import annotations

import subprocess
import sys


def test_cli_import_is_lazy():
    code = ("import sys, runbook_lib.cli.main as c; c.build_parser(); "
            "heavy = [m for m in ('papermill', 'nbconvert', 'nbformat', 'yaml', 'jupyter_client') if m in sys.modules]; "
            "print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == ""


def test_help_and_version_are_bilingual():
    out = subprocess.run([sys.executable, "-m", "runbook_lib.cli", "run", "--help"],
                         capture_output=True, text=True, check=True).stdout
    assert "대상 root" in out and "target root" in out
    ver = subprocess.run([sys.executable, "-m", "runbook_lib.cli", "--version"], capture_output=True, text=True)
    from runbook_lib import __version__

    assert ver.stdout.strip() == f"runbook {__version__}"



def test_a_reader_that_has_left_gets_no_traceback():
    """`runbook lab-init --list | head -1`: the reader is gone before the listing is written (its end of the pipe
    closed first, so that the write fails every time); the command stops quietly, exit 1, nothing on stderr."""
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)
    proc = subprocess.Popen([sys.executable, "-m", "runbook_lib.cli", "lab-init", "--list"],
                            stdout=write_end, stderr=subprocess.PIPE)
    os.close(write_end)
    _, stderr = proc.communicate(timeout=60)
    assert (proc.returncode, stderr.decode()) == (1, "")
