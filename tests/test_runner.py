"""The papermill runner (runbook_lib/cli/runner.py): papermill's CLI, without the URI grammar it never uses."""

from __future__ import annotations

import subprocess
import sys


def test_the_runner_process_never_imports_the_uri_grammar_and_still_validates_notebooks():
    code = ("import sys\n"
            "from runbook_lib.cdi.format_extras import skip_for_this_process\n"
            "skip_for_this_process()\n"
            "import papermill, nbformat, jsonschema\n"
            "from nbformat.v4 import new_notebook, new_code_cell\n"
            "nb = new_notebook(cells=[new_code_cell('x = 1')])\n"
            "nbformat.validate(nb)\n"
            "bad = new_notebook(cells=[new_code_cell('x = 1')]); bad.cells[0]['cell_type'] = 'nonsense'\n"
            "try:\n    nbformat.validate(bad)\nexcept nbformat.ValidationError:\n    print('invalid caught')\n"
            "from runbook_lib.cdi.format_extras import FORMAT_ONLY\n"
            "print('grammar loaded' if any(sys.modules.get(m) for m in FORMAT_ONLY) else 'grammar skipped')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "invalid caught" in out and "grammar skipped" in out


def test_the_cdi_validator_skips_the_grammar_only_while_importing_jsonschema():
    """In a kernel: jsonschema without the format-only extras, and sys.modules left as it was for the user."""
    code = ("import sys\n"
            "from runbook_lib.cdi.validate import validate_spec\n"
            "print(validate_spec({}) != [])\n"
            "from runbook_lib.cdi.format_extras import FORMAT_ONLY\n"
            "print(any(sys.modules.get(m) for m in FORMAT_ONLY), any(m in sys.modules for m in FORMAT_ONLY))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "False", "False"]


def test_the_runner_is_papermills_own_command_line():
    proc = subprocess.run([sys.executable, "-m", "runbook_lib.runner", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "papermill" in proc.stdout.lower() and "--parameters" in proc.stdout


def test_show_prints_the_summary_and_exits_with_the_runs_result(tmp_path):
    from helpers import NOTEBOOK
    root = tmp_path / "root"
    root.mkdir()
    out = tmp_path / "out.ipynb"
    ok = subprocess.run([sys.executable, "-m", "runbook_lib.runner", "--show", "--no-progress-bar", str(NOTEBOOK),
                         str(out), "-p", "root", str(root)], capture_output=True, text=True)
    assert ok.returncode == 0 and str(out) in ok.stdout and "통과 / passed" in ok.stdout
    (root / "etc/containerd/config.toml").write_text("[broken\n")
    bad = subprocess.run([sys.executable, "-m", "runbook_lib.runner", "--show", "--no-progress-bar", str(NOTEBOOK),
                          str(out), "-p", "root", str(root)], capture_output=True, text=True)
    assert bad.returncode == 1 and "실패 / failed" in bad.stdout
