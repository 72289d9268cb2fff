"""Issue 26's class: every hostile root beside a correct one, graded by `runbook grade --jobs 2` for real.

Each hostile root fails with its own finding, the correct one passes, and no process the grading started grew
above 1 GiB (nothing here is timed). And a grading stopped midway, by SIGTERM, SIGKILL or Ctrl-C, leaves no
process of its own behind."""
from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import hostile_roots
from helpers import alive, ctrl_c_reaches_children

REPO = Path(__file__).resolve().parents[2]
RUNBOOK = [sys.executable, "-m", "runbook_lib.cli"]
GIB_KB = 1024 * 1024  # ru_maxrss is in KiB


def steps_of(out: Path, label: str) -> list[dict]:
    """The student's steps as results.json holds them: each test's status and its findings' codes."""
    tests = json.loads((out / label / "results.json").read_text(encoding="utf-8"))["tests"]
    return [{"status": t["extra_data"]["runbook_status"], "problems": t["extra_data"]["findings"]} for t in tests]


def first_finding(steps: list[dict]) -> str | None:
    codes = [p["code"] for s in steps if s.get("status") == "failed" for p in s.get("problems") or []
             if p["code"] != "depends.earlier"]
    return codes[0] if codes else None


@pytest.mark.slow
def test_a_hostile_class_is_graded_each_root_with_its_finding(tmp_path):
    class_dir = tmp_path / "class"
    roots = [hostile_roots.make(class_dir, name) for name in ["correct", *hostile_roots.HOSTILE]]
    out = tmp_path / "grades"
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    proc = subprocess.run([*RUNBOOK, "grade", "--jobs", "2", "--out", str(out), *map(str, roots)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert [p["code"] for s in steps_of(out, "correct") for p in s.get("problems") or []] == []
    assert all(s["status"] != "failed" for s in steps_of(out, "correct"))
    found = {name: first_finding(steps_of(out, name)) for name in hostile_roots.HOSTILE}
    assert found == {name: code for name, (_, code) in hostile_roots.HOSTILE.items()}
    # the largest process the grading ran (it and its workers), as the kernel counted it
    largest = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before)
    assert largest < GIB_KB, f"a process of the grading reached {largest // 1024} MiB"


def test_the_sizes_and_the_limit_are_in_the_finding(tmp_path):
    root = hostile_roots.make(tmp_path, "comment-50m")
    from grading_helpers import check
    results = check(root)
    problem = results[1].problems[0]
    assert problem.code == "read.too_large"
    assert "50.0 MiB" in problem.what.en and "16.0 MiB" in problem.what.en  # a config's limit in all (issue 54)
    assert "50.0 MiB" in problem.what.ko and "16.0 MiB" in problem.what.ko


# --- nothing outlives the grading ------------------------------------------------------------------------

def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry))
    return out


def _tree(pid: int) -> dict[int, bytes]:
    """Every descendant of ``pid`` now, with its command line (read while it runs)."""
    found, todo = {}, [pid]
    while todo:
        p = todo.pop()
        for c in _children(p):
            if c not in found:  # read afresh each time: a process just forked has no command line yet
                try:
                    with open(f"/proc/{c}/cmdline", "rb") as f:
                        found[c] = f.read()
                except OSError:
                    continue
                todo.append(c)
    return found


def _merge(seen: dict[int, bytes], now: dict[int, bytes]) -> None:
    for pid, cmdline in now.items():
        if cmdline or pid not in seen:
            seen[pid] = cmdline


def _kernels(seen: dict[int, bytes]) -> set[int]:
    return {p for p, cmdline in seen.items() if b"ipykernel_launcher" in cmdline}


def _workers(seen: dict[int, bytes]) -> set[int]:
    """The grading's workers: forked from it, so with its own command line."""
    return {p for p, cmdline in seen.items() if b"runbook_lib.cli\x00grade" in cmdline}


def _wait_gone(pids: set[int], seconds: float = 30) -> set[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = {p for p in pids if alive(p)}
        if not left:
            return set()
        time.sleep(0.1)
    return {p for p in pids if alive(p)}


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL", "SIGINT"])
def test_a_grading_stopped_midway_leaves_no_process_behind(tmp_path, how):
    """Stopped while its workers run: every worker it started ends (PR_SET_PDEATHSIG), also when the command is
    killed outright and runs no clean-up of its own."""
    # roots whose check takes seconds (a CDI spec just under its size limit): killed midway, a worker left alone
    # would still be at work long after the wait below
    roots = [hostile_roots.make(tmp_path / f"class{i}", "big-spec") for i in range(3)]
    with ctrl_c_reaches_children():
        proc = subprocess.Popen([*RUNBOOK, "grade", "--jobs", "2", "--out", str(tmp_path / "out"),
                                 *map(str, roots)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                cwd=tmp_path, start_new_session=True)
    seen: dict[int, bytes] = {}
    deadline = time.monotonic() + 120
    while not _workers(seen) and time.monotonic() < deadline and proc.poll() is None:
        _merge(seen, _tree(proc.pid))
        time.sleep(0.05)
    assert _workers(seen), "the grading never started a worker"
    _merge(seen, _tree(proc.pid))
    if how == "SIGINT":  # Ctrl-C: the terminal sends it to the command's whole process group
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(getattr(signal, how))
    proc.wait(timeout=60)
    if how == "SIGINT":  # it stopped on the Ctrl-C, not at the end of its work
        assert proc.returncode == 130
    assert _wait_gone(set(seen), 10) == set(), "left running after the grading ended"


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_a_run_killed_midway_leaves_no_kernel_behind(tmp_path, how):
    """One root, no worker: the kernel's parent is the command itself, and the kernel ends with it."""
    root = hostile_roots.make(tmp_path, "big-spec")
    proc = subprocess.Popen([*RUNBOOK, "run", "--root", str(root), "--mode", "check", "--archive",
                             str(tmp_path / "archive")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            cwd=tmp_path)
    seen: dict[int, bytes] = {}
    deadline = time.monotonic() + 120
    while not _kernels(seen) and time.monotonic() < deadline and proc.poll() is None:
        _merge(seen, _tree(proc.pid))
        time.sleep(0.05)
    assert _kernels(seen), "the run never started a kernel"
    proc.send_signal(getattr(signal, how))
    proc.wait(timeout=60)
    assert _wait_gone(set(seen), 10) == set(), "left running after the run ended"


def test_a_grading_that_ends_leaves_no_process_behind(tmp_path):
    root = hostile_roots.make(tmp_path / "class", "big-spec")  # a check of seconds: its worker is seen at work
    proc = subprocess.Popen([*RUNBOOK, "grade", "--out", str(tmp_path / "out"), str(root)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    seen: dict[int, bytes] = {}
    while proc.poll() is None:
        _merge(seen, _tree(proc.pid))
        time.sleep(0.05)
    assert proc.returncode == 0
    assert _workers(seen), "the grading never started a worker"
    assert _wait_gone(set(seen), 10) == set()
