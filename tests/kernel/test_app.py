"""The notebook's kernel (runbook_lib/kernel/app.py), started for real through jupyter_client as papermill does.

What must hold: it is ipykernel's IPython kernel, without debugpy (and it says so to JupyterLab); it warms the
runbook's imports up once it is ready; it ends at once, with status 0, after a shutdown request; and the
notebook, the package's kernelspec and the wheel's data files all name the same kernel.
"""

from __future__ import annotations

import json
import time
import tomllib

import pytest
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
from jupyter_client.manager import KernelManager

from helpers import NOTEBOOK, REPO, started_kernel
from runbook_lib.kernel import app as kernel


def spec():
    try:
        return KernelSpecManager().get_kernel_spec(kernel.NAME)
    except NoSuchKernel:
        pytest.fail(f"the {kernel.NAME} kernelspec is not installed in this environment: `make venv` installs it "
                    "(python -m runbook_lib.kernel install)")


@pytest.fixture
def running():
    with started_kernel(kernel.NAME) as (km, kc):
        yield km, kc


def run(kc, code: str) -> str:
    """The cell's stdout (and its error, if it raised)."""
    out: list[str] = []

    def hook(msg):
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            out.append("\n".join(msg["content"]["traceback"]))

    kc.execute_interactive(code, timeout=60, output_hook=hook)
    return "".join(out)


def test_the_notebook_the_package_and_the_wheel_name_the_same_kernel():
    assert json.loads(NOTEBOOK.read_text())["metadata"]["kernelspec"]["name"] == kernel.NAME
    shipped = json.loads((kernel.spec_dir() / "kernel.json").read_text())
    assert shipped["argv"][:3] == ["python", "-m", "runbook_lib.kernel"] and "{connection_file}" in shipped["argv"]
    assert shipped["metadata"]["debugger"] is False
    files = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    assert files == {f"share/jupyter/kernels/{kernel.NAME}": ["runbook_lib/data/kernelspec/kernel.json"]}
    assert spec().argv[1:3] == ["-m", "runbook_lib.kernel"]


def test_the_kernel_runs_cells_without_debugpy_and_says_it_has_no_debugger(running):
    km, kc = running
    reply = kc.kernel_info(reply=True, timeout=30)["content"]
    assert "debugger" not in reply.get("supported_features", []) and not reply.get("debugger", False)
    shown = run(kc, "import sys\nprint(sys.modules.get('debugpy', 'absent'), 1 + 1)")
    assert shown.split() == ["None", "2"], shown  # marked absent, so ipykernel never imported it


def test_the_kernel_imports_the_runbook_while_it_waits_for_the_first_cell(running):
    _, kc = running
    code = ("import sys, threading, time\n"
            "t = time.monotonic()\n"
            "while any(th.name == 'runbook-warm-up' for th in threading.enumerate()) and time.monotonic() - t < 30:\n"
            "    time.sleep(0.01)\n"
            "from runbook_lib.cdi import validate as cdi_validate\n"
            "print('runbook_lib.steps' in sys.modules, 'yaml' in sys.modules, cdi_validate.schema_check.cache_info().currsize)")
    assert run(kc, code).split() == ["True", "True", "1"]


def test_the_kernel_ends_at_once_with_status_0_after_a_shutdown_request(running):
    km, kc = running
    run(kc, "import runbook_lib.notebook")
    km.request_shutdown()
    started = time.monotonic()
    while km.is_alive() and time.monotonic() - started < 30:
        time.sleep(0.005)
    assert not km.is_alive()
    assert km.provisioner.process.returncode == 0


def test_a_kernel_that_fails_to_start_keeps_its_own_exit_status(tmp_path):
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-m", "runbook_lib.kernel", "--no-such-option-here=1", "-f",
                           str(tmp_path / "missing" / "connection.json")], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0  # not the 0 of the quick exit after a clean shutdown


def test_the_quick_exit_comes_after_ipythons_own_exit_handlers(tmp_path):
    """A student's JupyterLab history is written as with the stock kernel: the input, and the session's end."""
    import os
    import sqlite3
    km = KernelManager(kernel_name=kernel.NAME)
    km.start_kernel(env={**os.environ, "IPYTHONDIR": str(tmp_path / "ipython")})
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        run(kc, "history_marker = 4711")
        km.request_shutdown()
        started = time.monotonic()
        while km.is_alive() and time.monotonic() - started < 30:
            time.sleep(0.005)
    finally:
        kc.stop_channels()
        if km.is_alive():
            km.shutdown_kernel(now=True)
    db = sqlite3.connect(tmp_path / "ipython" / "profile_default" / "history.sqlite")
    assert ("history_marker = 4711",) in db.execute("select source from history").fetchall()
    assert db.execute("select count(*) from sessions where end is not null").fetchone()[0] == 1


def _notebook_with_kernel(path, name: str):
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook
    nb = new_notebook(cells=[new_code_cell("x = 1")])
    nb.metadata["kernelspec"] = {"name": name, "display_name": name, "language": "python"}
    nbformat.write(nb, str(path))
    return path


def test_a_missing_kernel_is_explained_with_its_fix_by_runbook_run(tmp_path):
    from runbook_lib.evidence import archive
    nb = _notebook_with_kernel(tmp_path / "in.ipynb", "no-such-kernel-4711")
    result = archive.execute(nb, {}, tmp_path / "archive", "x", "0")
    error = result.manifest["error"]
    assert not result.ok and error["ename"] == "NoSuchKernel"
    assert "no-such-kernel-4711" in error["evalue"] and "runbook_lib.kernel install" in error["evalue"]
    assert "커널" in error["evalue"] and "-k python3" in error["evalue"]


def test_a_missing_kernel_is_explained_with_its_fix_by_the_runner(tmp_path):
    import subprocess
    import sys
    nb = _notebook_with_kernel(tmp_path / "in.ipynb", "no-such-kernel-4711")
    proc = subprocess.run([sys.executable, "-m", "runbook_lib.runner", "--show", str(nb), str(tmp_path / "out.ipynb")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "runbook_lib.kernel install" in proc.stderr and "설치되어 있지 않습니다" in proc.stderr, proc.stderr
