"""Every run bounded (runbook_lib/engine/limits.py): the time and memory limits stop a cell in the kernel with
the finding's words, under plain papermill as under `runbook grade`; other roots are still graded."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import hostile_roots
from kernel_ports import run_papermill
from runbook_lib.findings.problem import words

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "notebooks" / "run.ipynb"
PAPERMILL = [sys.executable, "-m", "papermill"]


@pytest.fixture
def kernel():
    """The notebook's kernel (ipykernel's stock python3), as papermill starts it, and a way to run a cell in it: (status, ename, evalue)."""
    from kernel_ports import kernel_manager

    km = kernel_manager("python3")  # on this xdist worker's own ports
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)

    def run(code: str, timeout: float = 120):
        reply = kc.execute_interactive(code, timeout=timeout, output_hook=lambda msg: None)["content"]
        return reply["status"], reply.get("ename"), reply.get("evalue", "")

    run.manager = km
    run.client = kc
    yield run
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def test_a_cell_beyond_the_time_limit_stops_with_the_words(kernel):
    assert kernel("from runbook_lib.engine import limits; assert limits.arm(1, 768)") == ("ok", None, "")
    status, ename, evalue = kernel("while True:\n    n = 1")
    assert (status, ename) == ("error", "RunStopped")
    assert "stopped: took longer than 1 s" in evalue and "1초보다 오래 걸렸습니다" in evalue


def test_a_cell_that_catches_the_stop_is_stopped_again(kernel):
    kernel("from runbook_lib.engine import limits; limits.arm(1, 768)")
    # (a loop with a body: CPython 3.11 does not deliver an exception to the handler of a bare `while True: pass`)
    status, ename, _ = kernel("n = caught = 0\ntry:\n    while True:\n        n += 1\nexcept BaseException:\n"
                              "    caught = 1\nwhile True:\n    n += 1")
    assert (status, ename) == ("error", "RunStopped")
    assert kernel("assert caught == 1") == ("ok", None, ""), "the first stop was caught, the second one was not"


def test_c_code_that_looks_at_signals_is_stopped_with_the_words(kernel):
    """A regular expression backtracking for ever holds the interpreter's lock, but looks at signals now and then:
    the profiling timer's handler runs there and lets the watchdog tell the cell to stop."""
    kernel("from runbook_lib.engine import limits; limits.arm(1, 768)")
    status, ename, evalue = kernel("import re; re.match(r'(a+)+$', 'a' * 64 + 'b')")
    assert (status, ename) == ("error", "RunStopped")
    assert "stopped: took longer than 1 s" in evalue
    assert kernel("1 + 1") == ("ok", None, ""), "the kernel goes on"


def test_a_cell_stuck_in_c_code_ends_the_kernel(kernel):
    """A builtin walking an endless iterator never returns to Python nor looks at signals, so no signal handler can
    stop it: the CPU limit (the time limit + GRACE) ends the kernel, and papermill then reports a dead kernel.
    GRACE is 1 s here instead of 10, so that the loop burns 3 s of CPU, not 12."""
    import time

    kernel("from runbook_lib.engine import limits; limits.GRACE = 1.0; limits.arm(1, 768)")
    kernel.client.execute("import itertools; any(itertools.repeat(False))")  # no reply is waited for: none comes
    deadline = time.monotonic() + 120  # the kernel's end is waited for (1 s + GRACE of CPU), not a reply's timeout
    while kernel.manager.is_alive() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not kernel.manager.is_alive()


def test_a_cell_beyond_the_memory_limit_stops_with_the_words(kernel):
    kernel("from runbook_lib.engine import limits; limits.arm(300, int(limits.rss_mib()) + 100)")
    status, ename, evalue = kernel("x = []\nwhile True: x.append(bytearray(1 << 20))")
    assert (status, ename) == ("error", "RunStopped")
    assert "stopped: used more than" in evalue and "MiB" in evalue and "메모리를" in evalue
    # the cell's own thread looks every 10 ms of CPU time, however busy the machine: the stop comes close to the
    # limit, far from the address-space backstop (2 x the limit above the kernel's address space) and its bare
    # MemoryError (a watchdog thread alone overshot by 125 MiB with three busy processes beside it)
    assert kernel("assert len(x) < 100 + 64, len(x)") == ("ok", None, "")
    assert kernel("del x") == ("ok", None, "")
    assert kernel("import signal; limits.disarm(); assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)") == \
        ("ok", None, "")


def test_time_between_cells_does_not_count(kernel):
    """In JupyterLab a notebook waits between cells for as long as its student likes."""
    import time

    kernel("from runbook_lib.engine import limits; limits.arm(1, 768)")
    time.sleep(1.5)  # the kernel idle, between two cells
    assert kernel("import time; time.sleep(0.3)") == ("ok", None, "")


def test_plain_papermill_stops_on_the_memory_limit_with_the_same_words(tmp_path):
    """The notebook arms the limits itself (the validation cell): no runbook command is needed."""
    root = hostile_roots.make(tmp_path, "big-spec")
    out = tmp_path / "out.ipynb"
    proc = run_papermill([*PAPERMILL, "--log-level", "WARNING", str(NOTEBOOK), str(out), "-p", "root", str(root),
                          "-p", "mode", "check", "-p", "memory_limit", "40"], capture_output=True, text=True)
    assert proc.returncode != 0
    errors = [o for c in json.loads(out.read_text())["cells"] for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert [e["ename"] for e in errors] == ["RunStopped"]
    what = words("run.memory", mib=40, reading="X")[0]
    assert what.en.split("X")[0] in errors[0]["evalue"] and what.ko.split("X")[0] in errors[0]["evalue"]


def test_grade_with_a_memory_limit_stops_one_root_and_grades_the_other(tmp_path):
    """A CDI spec just under its size limit takes ~40 MiB to judge on top of what the grader holds when it forks
    its workers (~35 MiB: every import, what a kernel would hold before its run), a correct root next to nothing:
    with --memory 56 the first is that student's result, "used more than 56 MiB", and the second still passes."""
    roots = [hostile_roots.make(tmp_path / "class", name) for name in ("big-spec", "correct")]
    out = tmp_path / "grades"
    proc = subprocess.run([sys.executable, "-m", "runbook_lib.cli", "grade", "--jobs", "2", "--memory", "56",
                           "--out", str(out), *map(str, roots)], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr[-2000:]
    big = json.loads((out / "big-spec" / "results.json").read_text(encoding="utf-8"))
    (why,) = [t for t in big["tests"] if t["extra_data"]["id"] == "grading"]  # the run stopped: no verdicts
    assert why["output"].startswith("RunStopped: ")
    assert "used more than 56 MiB" in why["output"]
    assert "/etc/cdi/nvidia.yaml" in why["output"], "it says what was being read"
    assert json.loads((out / "correct" / "results.json").read_text(encoding="utf-8"))["extra_data"]["ok"] is True
    assert "used more than 56 MiB" in proc.stdout, "the command says why the student's run stopped"


def test_a_limit_below_one_is_refused_before_anything_runs(tmp_path):
    (tmp_path / "student").mkdir()
    proc = subprocess.run([sys.executable, "-m", "runbook_lib.cli", "grade", "--timeout", "0", "--out",
                           str(tmp_path / "o"), str(tmp_path / "student")], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "--timeout must be a positive whole number; got 0" in proc.stderr
    assert "양의 정수여야 하는 파라미터입니다: --timeout" in proc.stderr
    assert not (tmp_path / "o").exists()
