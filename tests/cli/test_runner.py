"""The papermill runner (runbook_lib/cli/runner.py): papermill's CLI, without the URI grammar it never uses."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook


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


# --- the runner's kernel at the end of a run: asked to stop, not waited for, never left behind -----------------

SLOW_EXIT = """import atexit, os, pathlib, time
def _slow_exit():  # a kernel slow on its way out; the marker says it got to the end
    time.sleep(3)
    pathlib.Path(os.environ["MARKER"]).write_text("exited by itself")
atexit.register(_slow_exit)
print(os.getpid())"""


def _pid_notebook(path: Path, code: str) -> Path:
    nb = new_notebook(cells=[new_code_cell(code)])
    nb.metadata["kernelspec"] = {"name": "nvidia-runbook", "display_name": "Python 3 (runbook)", "language": "python"}
    nbformat.write(nb, str(path))
    return path


def _kernel_pid(out: Path) -> int:
    return int(nbformat.read(str(out), as_version=4).cells[-1].outputs[0]["text"])


def _alive(pid: int) -> bool:
    """Running, not a zombie: an orphan's zombie lingers where PID 1 of a container reaps nothing."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


def test_the_runner_ends_without_waiting_for_its_kernel_and_leaves_no_kernel_behind(tmp_path):
    """`python -m runbook_lib.runner` sends the stop and goes on (the kernel's exit is nothing of the run's); the
    kernel, still in an exit handler when the runner ends, is ended with it by its lifeline."""
    marker = tmp_path / "marker"
    nb, out = _pid_notebook(tmp_path / "slow.ipynb", SLOW_EXIT), tmp_path / "out.ipynb"
    proc = subprocess.run([sys.executable, "-m", "runbook_lib.runner", "--no-progress-bar", str(nb), str(out)],
                          capture_output=True, text=True, env={**os.environ, "MARKER": str(marker)}, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    pid = _kernel_pid(out)
    for _ in range(100):
        if not _alive(pid):
            break
        time.sleep(0.05)
    assert not _alive(pid)
    time.sleep(3.5)  # the exit handler's sleep, had it gone on
    assert not marker.exists()


def test_the_runner_called_in_a_process_that_goes_on_waits_for_its_kernel_to_exit(tmp_path):
    """main() in-process (a test, a tool): the kernel has exited and been reaped when it returns, no zombie."""
    from runbook_lib.cli.runner import main

    nb, out = _pid_notebook(tmp_path / "pid.ipynb", "import os\nprint(os.getpid())"), tmp_path / "out.ipynb"
    assert main(["--no-progress-bar", "--log-level", "ERROR", str(nb), str(out)]) == 0
    assert not Path(f"/proc/{_kernel_pid(out)}").exists()


def test_a_detached_stop_returns_while_the_kernel_is_still_on_its_way_out(tmp_path, monkeypatch):
    """detach_at_shutdown(): the run returns with the kernel still in its slow exit handler (without it, the
    manager would wait, then SIGTERM and SIGKILL it before returning)."""
    import papermill

    from runbook_lib.kernel import manager

    monkeypatch.setattr(manager, "_detached", False)  # put back after the test
    manager.register()
    manager.detach_at_shutdown()
    monkeypatch.setenv("MARKER", str(tmp_path / "marker"))
    nb, out = _pid_notebook(tmp_path / "slow.ipynb", SLOW_EXIT), tmp_path / "out.ipynb"
    papermill.execute_notebook(str(nb), str(out), engine_name=manager.ENGINE_NAME, progress_bar=False)
    pid = _kernel_pid(out)
    try:
        assert _alive(pid)
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
