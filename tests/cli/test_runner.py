"""The papermill runner (runbook_lib/cli/runner.py): papermill's CLI with its `runbook` engine
(runbook_lib/evidence/engine.py: the stock python3 kernel on private IPC sockets)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from kernel_ports import run_papermill


def test_grading_a_spec_that_fails_the_cdi_schema_never_imports_jsonschema_nor_fastjsonschema(tmp_path):
    """The CDI schema is checked by jsonschema-rs alone: `runbook grade` of a root whose spec fails the schema
    (lab-init's missing kind, and a device node's `path` written `hostPath`) says the schema's findings, and
    neither python-jsonschema (seconds of import with JupyterLab's format extras) nor fastjsonschema is imported,
    in the grader or in its forked workers (an import finder installed before the fork writes down any try)."""
    root, out, tried = tmp_path / "root", tmp_path / "out", tmp_path / "imported.txt"
    code = ("import sys\n"
            "class Spy:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.partition('.')[0] in ('jsonschema', 'fastjsonschema'):\n"
            f"            open({str(tried)!r}, 'a').write(name + '\\n')\n"
            "sys.meta_path.insert(0, Spy())\n"
            "from runbook_lib.cli.main import main\n"
            f"assert main(['lab-init', '--mistake', 'missing-cdi-kind', {str(root)!r}]) == 0\n"
            f"spec = {str(root / 'etc/cdi/nvidia.yaml')!r}\n"
            "text = open(spec).read()\n"
            "assert '- path: /dev/nvidia0' in text\n"
            "open(spec, 'w').write(text.replace('- path: /dev/nvidia0', '- hostPath: /dev/nvidia0'))\n"
            f"print(main(['grade', '--jobs', '2', '--out', {str(out)!r}, {str(root)!r}]))\n"
            "print('jsonschema' in sys.modules, 'fastjsonschema' in sys.modules, 'jsonschema_rs' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split()[-4:] == ["1", "False", "False", "True"], proc.stdout[-2000:]
    assert not tried.exists(), tried.read_text()
    results = json.loads((out / "root" / "results.json").read_text())
    (cdi,) = [t for t in results["tests"] if t["extra_data"]["id"] == "cdi"]
    codes = {f["code"] for f in cdi["extra_data"]["findings"]}
    assert {"cdi.kind_missing", "cdi.schema"} <= codes, codes
    (schema,) = [f for f in cdi["extra_data"]["findings"] if f["code"] == "cdi.schema"]
    assert "/devices/0/containerEdits/deviceNodes/0/path" in schema["what"]["en"], schema


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


# --- the runner's kernel: ipykernel's stock python3, on private IPC sockets, gone with the run ---------------

PROBE = """import json, os
from ipykernel import get_connection_info
info = json.loads(get_connection_info())
print(json.dumps({"pid": os.getpid(), "transport": info["transport"], "ip": info["ip"]}))"""


def _notebook(path: Path, code: str, kernel: str = "python3") -> Path:
    nb = new_notebook(cells=[new_code_cell(code)])
    nb.metadata["kernelspec"] = {"name": kernel, "display_name": kernel, "language": "python"}
    nbformat.write(nb, str(path))
    return path


def _probed(out: Path) -> dict:
    return json.loads(nbformat.read(str(out), as_version=4).cells[-1].outputs[0]["text"])


def test_the_engine_is_papermills_entry_point_of_the_name_the_runs_use():
    from importlib.metadata import entry_points

    from runbook_lib.evidence.archive import ENGINE_NAME
    (found,) = [ep for ep in entry_points(group="papermill.engine") if ep.name == ENGINE_NAME]
    assert found.value == "runbook_lib.evidence.engine:RunbookEngine"


def test_while_cells_run_the_notebook_is_written_at_most_once_a_window_and_papermills_last_save_writes(tmp_path):
    """papermill's own execution manager saves at every cell's start and end; the engine lets one write through a
    window (evidence/engine.py SAVE_EVERY) and gives papermill its save back for the last one."""
    from papermill.engines import NotebookExecutionManager

    from runbook_lib.evidence.engine import _saves_at_most_every

    out = tmp_path / "out.ipynb"
    nb_man = NotebookExecutionManager(new_notebook(cells=[new_code_cell("pass")]), output_path=str(out))
    undo = _saves_at_most_every(nb_man, 600)
    nb_man.save()
    assert out.exists()  # the first save writes
    out.unlink()
    for _ in range(20):
        nb_man.save()
    nb_man.save(nb=new_notebook(cells=[new_code_cell("x = 1")]))  # papermill's public way to hand a new notebook
    assert not out.exists()  # within the window nothing is written again
    undo()
    nb_man.save()
    assert nbformat.read(str(out), as_version=4).cells[0].source == "x = 1"


def test_the_runner_runs_the_stock_kernel_on_ipc_sockets_of_its_own_removed_after_the_run(tmp_path):
    nb, out = _notebook(tmp_path / "probe.ipynb", PROBE), tmp_path / "out.ipynb"
    proc = subprocess.run([sys.executable, "-m", "runbook_lib.runner", "--no-progress-bar", str(nb), str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    probed = _probed(out)
    assert probed["transport"] == "ipc" and os.path.basename(probed["ip"]) == "kernel"
    assert not os.path.exists(os.path.dirname(probed["ip"]))  # the folder went with the run
    assert "without encryption" not in proc.stderr  # ipykernel's warning of a TCP kernel
    assert nbformat.read(str(out), as_version=4).metadata["papermill"]["parameters"] == {}


def test_a_caller_engine_is_papermills_own_tcp_kernel(tmp_path):
    nb, out = _notebook(tmp_path / "probe.ipynb", PROBE), tmp_path / "out.ipynb"
    proc = run_papermill([sys.executable, "-m", "runbook_lib.runner", "--no-progress-bar", "--engine", "nbclient",
                          str(nb), str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert _probed(out)["transport"] == "tcp"


def test_the_runner_called_in_a_process_that_goes_on_waits_for_its_kernel_to_exit(tmp_path):
    """main() in-process (a test, a tool): the kernel has exited and been reaped when it returns, no zombie."""
    from runbook_lib.cli.runner import main

    nb, out = _notebook(tmp_path / "pid.ipynb", PROBE), tmp_path / "out.ipynb"
    assert main(["--no-progress-bar", "--log-level", "ERROR", str(nb), str(out)]) == 0
    assert not Path(f"/proc/{_probed(out)['pid']}").exists()


def test_a_missing_kernel_is_explained_with_its_fix_by_runbook_run(tmp_path):
    from runbook_lib.evidence import archive
    nb = _notebook(tmp_path / "in.ipynb", "x = 1", kernel="no-such-kernel-4711")
    result = archive.execute(nb, {}, tmp_path / "archive", "x", "0")
    error = result.manifest["error"]
    assert not result.ok and error["ename"] == "NoSuchKernel"
    assert "no-such-kernel-4711" in error["evalue"] and "ipykernel install --sys-prefix --name python3" in error["evalue"]
    assert "커널" in error["evalue"]


def test_a_missing_kernel_is_explained_with_its_fix_by_the_runner(tmp_path):
    nb = _notebook(tmp_path / "in.ipynb", "x = 1", kernel="no-such-kernel-4711")
    proc = subprocess.run([sys.executable, "-m", "runbook_lib.runner", "--show", str(nb), str(tmp_path / "out.ipynb")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "ipykernel install --sys-prefix --name python3" in proc.stderr and "설치되어 있지 않습니다" in proc.stderr, proc.stderr


def test_a_kernel_that_does_not_end_by_itself_is_ended_after_the_engines_short_wait(tmp_path):
    """ipykernel 7.4 sometimes does not end after its shutdown reply (docs/BENCHMARKS.md); jupyter_client then
    waits half of the kernel manager's shutdown_wait_time before SIGTERM. The runbook engine sets it
    (evidence/engine.py SHUTDOWN_WAIT, not the default 5 s): here a kernel held at its exit by an atexit handler is
    ended by the SIGTERM, and the run ends with its notebook whole."""
    from jupyter_client.manager import AsyncKernelManager
    from kernel_ports import runbook_engine_execute

    from runbook_lib.evidence.engine import SHUTDOWN_WAIT

    waits = []

    class Recorder(AsyncKernelManager):  # nbclient's public kernel_manager_class: what the run's manager was told
        async def shutdown_kernel(self, now: bool = False, restart: bool = False):  # its public name
            waits.append(self.shutdown_wait_time)
            return await super().shutdown_kernel(now=now, restart=restart)

    ended = tmp_path / "ended"
    held = ("import atexit, signal, time\n"
            f"signal.signal(signal.SIGTERM, lambda *a: (open({str(ended)!r}, 'w').write('SIGTERM'), exit(0)))\n"
            "atexit.register(time.sleep, 600)\n"
            "print('held')")
    nb, out = _notebook(tmp_path / "held.ipynb", held), tmp_path / "out.ipynb"
    runbook_engine_execute(str(nb), str(out), kernel_manager_class=Recorder, progress_bar=False, log_output=False)
    assert waits == [SHUTDOWN_WAIT] and SHUTDOWN_WAIT < 5
    assert ended.read_text() == "SIGTERM"
    assert nbformat.read(out, as_version=4).cells[0].outputs[0]["text"] == "held\n"
