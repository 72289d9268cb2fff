"""The early kernel and our kernel manager (runbook_lib/kernel/early.py, manager.py), with real kernels.

What must hold: the kernel started before papermill is the one that runs the cells when nothing differs;
when anything differs (working directory, kernel name) it is stopped and jupyter_client's own launch runs
the notebook; no kernel process, socket or folder outlives a run; kernels talk over IPC, not TCP.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import papermill
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from runbook_lib.kernel import early as kernel_early
from runbook_lib.kernel.manager import ENGINE_NAME, register
from runbook_lib.cli.runner import _option, kernel_name_of

PROBE = ("import json, os, sys\n"
         "from ipykernel import get_connection_info\n"
         "info = json.loads(get_connection_info())\n"
         "print(json.dumps({'pid': os.getpid(), 'cwd': os.getcwd(), 'transport': info['transport'],"
         " 'ip': info['ip'], 'preloaded': 'runbook_lib.notebook' in sys.modules}))")


def probe_notebook(path: Path) -> Path:
    """A `root` parameter (as `runbook run` requires), then the probe, whose output is the last cell's."""
    params = new_code_cell('root = ""')
    params.metadata["tags"] = ["parameters"]
    nb = new_notebook(cells=[params, new_code_cell(PROBE)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(path))
    return path


def run_probe(tmp_path: Path, **kwargs) -> dict:
    register()
    out = tmp_path / "out.ipynb"
    papermill.execute_notebook(str(probe_notebook(tmp_path / "probe.ipynb")), str(out), engine_name=ENGINE_NAME,
                               kernel_name="python3", progress_bar=False, **kwargs)
    text = nbformat.read(str(out), as_version=4).cells[-1].outputs[0]["text"]
    return json.loads(text)


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_early_kernel_runs_the_cells_over_private_ipc_sockets(tmp_path):
    early = kernel_early.spawn("python3")
    assert early is not None, "the python3 kernelspec of the venv (make test installs it) was not found"
    assert os.stat(early.folder).st_mode & 0o777 == 0o700  # nobody else can reach the sockets
    assert os.stat(early.connection_file).st_mode & 0o777 == 0o600  # nor read the key
    seen = run_probe(tmp_path)
    assert seen["pid"] == early.process.pid  # adopted, not a second kernel
    assert seen["transport"] == "ipc" and seen["ip"].startswith(early.folder)
    assert seen["preloaded"]  # the runbook's module was imported while the kernel booted
    assert early.process.poll() is not None and not os.path.exists(early.folder)  # stopped and cleaned up


def test_an_early_kernel_in_another_working_directory_is_replaced_not_used(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    early = kernel_early.spawn("python3", cwd=str(elsewhere))
    seen = run_probe(tmp_path)  # papermill starts the kernel in this process's working directory
    assert seen["pid"] != early.process.pid and seen["cwd"] == os.getcwd()
    assert early.process.poll() is not None  # the early one was stopped, not left running
    assert seen["transport"] == "ipc" and not os.path.exists(early.folder)


def test_without_an_early_kernel_the_manager_still_uses_a_private_ipc_folder(tmp_path):
    kernel_early.discard()
    seen = run_probe(tmp_path)
    folder = os.path.dirname(seen["ip"])
    assert seen["transport"] == "ipc" and Path(folder).name.startswith("runbook-kernel-")
    assert seen["preloaded"]  # the engine gives jupyter_client's own launch the same arguments
    assert not os.path.exists(folder)  # removed with the kernel


def test_a_kernel_for_another_name_is_stopped_when_claimed():
    early = kernel_early.spawn("python3")
    assert kernel_early.claim("julia-1.10") is None
    assert early.process.poll() is not None and not os.path.exists(early.folder)
    assert kernel_early.claim("python3") is None  # handed over at most once


def test_an_unclaimed_early_kernel_does_not_outlive_its_process():
    code = ("from runbook_lib.kernel import early as kernel_early\n"
            "k = kernel_early.spawn('python3')\n"
            "print(k.process.pid, k.folder)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    pid, folder = int(out[0]), out[1]
    assert gone(pid) and not os.path.exists(folder)


def test_an_unknown_kernelspec_starts_nothing_early():
    assert kernel_early.spawn("no-such-kernel-xyz") is None
    assert not kernel_early.has_pending()


@pytest.mark.parametrize("args, expected", [
    (["-k", "python3", "in.ipynb", "out.ipynb"], "python3"),
    (["--kernel=ir", "in.ipynb"], "ir"),
    (["--kernel", "a", "-k", "b"], "b"),
    (["in.ipynb"], None),
])
def test_the_runner_reads_papermills_kernel_option(args, expected):
    assert _option(args, "-k", "--kernel") == expected


def test_the_runner_reads_the_kernel_name_from_the_input_notebook(tmp_path):
    nb = probe_notebook(tmp_path / "x.ipynb")
    assert kernel_name_of(["-p", "root", "/", str(nb), "out.ipynb"]) == "python3"
    assert kernel_name_of(["-k", "other", str(nb)]) == "other"
    assert kernel_name_of([str(tmp_path / "missing.ipynb")]) is None


# Runs a command's main() in a fresh process with the kernel manager reporting whether it adopted the early
# kernel: the runner (`make run`) and `runbook run` must start it early *and* give it the exact launch.
REPORT_ADOPTION = """
import sys
import runbook_lib.kernel.manager as km
launch = km.RunbookKernelManager._async_launch_kernel
async def reporting(self, *args, **kwargs):
    await launch(self, *args, **kwargs)
    print(f"ADOPTED={self.adopted_early_kernel} REFUSED={self.early_kernel_refused}", file=sys.stderr)
km.RunbookKernelManager._async_launch_kernel = reporting
from MODULE import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("module, args", [
    ("runbook_lib.runner", ["--no-progress-bar", "--no-request-save-on-cell-execute", "{nb}", "{out}"]),
    ("runbook_lib.cli.main", ["run", "--root", "{root}", "--archive", "{archive}", "--notebook", "{nb}"]),
], ids=["runner", "runbook-run"])
def test_the_commands_adopt_the_kernel_they_started(tmp_path, module, args):
    nb = probe_notebook(tmp_path / "probe.ipynb")
    (tmp_path / "root").mkdir()
    values = {"nb": str(nb), "out": str(tmp_path / "out.ipynb"), "root": str(tmp_path / "root"),
              "archive": str(tmp_path / "archive")}
    proc = subprocess.run([sys.executable, "-c", REPORT_ADOPTION.replace("MODULE", module),
                           *[a.format(**values) for a in args]], capture_output=True, text=True, cwd=tmp_path)
    assert "ADOPTED=True REFUSED=None" in proc.stderr, proc.stderr[-2000:]


def test_the_kernel_manager_can_be_imported_before_papermill():
    # papermill loads engine entry points while papermill.engines is being imported; ours is not one
    subprocess.run([sys.executable, "-c", "import runbook_lib.kernel.manager, papermill"], check=True)


def test_without_a_writable_temporary_folder_jupyter_clients_defaults_run_the_notebook(tmp_path, monkeypatch):
    import tempfile

    def refuse(*args, **kwargs):
        raise PermissionError(13, "read-only file system")

    kernel_early.discard()
    monkeypatch.setattr(tempfile, "mkdtemp", refuse)  # kernel_early's and kernel_manager's folder
    assert kernel_early.spawn("python3") is None and not kernel_early.has_pending()
    seen = run_probe(tmp_path)
    assert seen["transport"] == "tcp"  # the run still works, as plain papermill would run it


async def stop_a_kernel_that_hangs(manager_class) -> tuple[float, object, int | None]:
    """Start a kernel whose exit hangs (an atexit handler sleeping 600 s), then shut it down with the given
    manager: (seconds the shutdown took, the manager, the process' return code). bench/kernel_stop.py uses it."""
    import time

    km = manager_class(kernel_name="python3")
    await km.start_kernel()
    kc = km.client()
    kc.start_channels()
    await kc.wait_for_ready(timeout=60)
    await kc.execute_interactive("_ = __import__('atexit').register(__import__('time').sleep, 600)", timeout=60)
    kc.stop_channels()
    process = km.provisioner.process
    started = time.perf_counter()
    await km.shutdown_kernel()
    return time.perf_counter() - started, km, process.returncode


def test_a_kernel_that_hangs_on_its_way_out_is_stopped_by_a_signal(tmp_path):
    """ipykernel sometimes hangs after a shutdown request; the manager ends it with a signal after its short wait
    (jupyter_client waits half of shutdown_wait_time, then SIGTERMs, then SIGKILLs). How long that takes is
    measured by bench/kernel_stop.py, not here."""
    import asyncio

    from runbook_lib.kernel.manager import RunbookKernelManager

    _, km, returncode = asyncio.run(stop_a_kernel_that_hangs(RunbookKernelManager))
    assert returncode is not None and returncode < 0  # stopped by a signal, not by finishing its 600 s
    assert km.shutdown_wait_time == 1.0  # 0.5 s for the request, 0.5 s after SIGTERM (jupyter_client: 5.0)


def test_the_kernel_folders_of_a_killed_maker_are_swept_at_the_next_start_and_a_live_ones_stay(tmp_path, monkeypatch):
    """A grader killed with SIGKILL never removes its kernel folders (connection file, IPC sockets); the next
    kernel folder made on the machine removes the folders whose maker no longer exists, and only those."""
    import signal
    import subprocess
    import sys
    import tempfile

    from runbook_lib.kernel import early as kernel_early

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    maker = subprocess.Popen([sys.executable, "-c", "import sys, time\n"
                              "from runbook_lib.kernel.early import private_folder\n"
                              "print(private_folder(), flush=True); time.sleep(600)"],
                             stdout=subprocess.PIPE, text=True, env=env)
    killed = maker.stdout.readline().strip()
    assert os.path.basename(killed).startswith(f"runbook-kernel-{maker.pid}-")
    os.kill(maker.pid, signal.SIGKILL)
    maker.wait()
    live = tmp_path / f"runbook-kernel-{os.getpid()}-live"
    live.mkdir()
    unnamed = tmp_path / "runbook-kernel-abcdef"  # an older name, no pid: whose it is cannot be told
    unnamed.mkdir()
    made = kernel_early.private_folder()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, unnamed.name, os.path.basename(made)])
    os.rmdir(made)
