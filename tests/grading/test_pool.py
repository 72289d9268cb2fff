"""The grading's worker pool (runbook_lib/grading/pool.py) with real tasks, real forks and real signals: one
student's task that raises, runs past its time, blocks the timer's signal, or ends its worker is that student's
only; every other task's result comes back whole, each exactly once, and no worker outlives the pool."""

from __future__ import annotations

import os
import signal
import time

from helpers import alive
from runbook_lib.grading import pool


KEPT: list = []


def task(what: str) -> dict:
    """A student's task, as a test chooses it to end."""
    if what == "raise":
        raise ValueError("this student's root is odd")
    if what == "exit":
        os._exit(7)  # the worker ends mid-task: a crash of the grading process
    if what == "sleep":
        time.sleep(3600)  # the worker's timer stops it
    if what == "grow":
        KEPT.append(bytearray(96 * 1024 * 1024))  # 96 MiB the worker keeps after the task
    if what == "deaf":
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})  # no timer reaches it: the parent kills it
        time.sleep(3600)
    return {"task": what, "pid": os.getpid(), "parent": os.getppid()}


def by_index(tasks, jobs, timeout=None, retire_mib=None) -> dict[int, tuple[str, object]]:
    seen: dict[int, tuple[str, object]] = {}
    for index, kind, value, seconds in pool.run(task, tasks, jobs, timeout, retire_mib):
        assert index not in seen, f"task {index} came back twice"
        assert seconds >= 0
        seen[index] = (kind, value)
    assert sorted(seen) == list(range(len(tasks)))
    return seen


def test_every_result_comes_back_from_workers_forked_from_here():
    tasks = [f"ok{i}" for i in range(7)]
    seen = by_index(tasks, 2)
    assert {kind for kind, _ in seen.values()} == {"ok"}
    assert {value["parent"] for _, value in seen.values()} == {os.getpid()}
    assert len({value["pid"] for _, value in seen.values()}) == 2  # two workers, each grading student after student
    assert [seen[i][1]["task"] for i in range(7)] == tasks


def test_a_task_that_raises_is_that_students_error_and_the_worker_goes_on():
    seen = by_index(["ok0", "raise", "ok2"], 1)
    assert seen[1] == ("error", {"ename": "ValueError", "evalue": "this student's root is odd"})
    assert seen[0][0] == seen[2][0] == "ok" and seen[0][1]["pid"] == seen[2][1]["pid"]


def test_a_worker_that_dies_is_that_students_error_and_a_fresh_worker_grades_the_rest():
    seen = by_index(["ok0", "exit", "ok2", "ok3"], 1)
    assert seen[1] == ("kernel", {"status": 7})
    assert [seen[i][0] for i in (0, 2, 3)] == ["ok", "ok", "ok"]
    assert seen[0][1]["pid"] != seen[2][1]["pid"]  # the dead worker was replaced


def test_a_task_past_its_time_is_stopped_by_the_workers_timer():
    seen = by_index(["sleep", "ok1"], 1, timeout=1)
    assert seen[0] == ("timeout", {"seconds": 1})
    assert seen[1][0] == "ok"


def test_a_task_no_signal_reaches_is_killed_by_the_parent_and_the_others_go_on():
    seen = by_index(["deaf", "ok1", "ok2"], 2, timeout=1)
    assert seen[0] == ("timeout", {"seconds": 1})
    assert seen[1][0] == seen[2][0] == "ok"
    time.sleep(0.1)
    assert not [p for p in {v["pid"] for k, v in seen.values() if k == "ok"} if alive(p)]


def test_a_worker_grown_by_a_task_is_replaced_before_the_next_one():
    seen = by_index(["ok0", "grow", "ok2", "ok3"], 1, retire_mib=64)
    assert [kind for kind, _ in seen.values()] == ["ok"] * 4
    pids = [seen[i][1]["pid"] for i in range(4)]
    assert pids[0] == pids[1] != pids[2] == pids[3]  # replaced after the task that grew it, and only then
