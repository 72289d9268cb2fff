"""What one student's grading says, field by field (grade._take: what the student's worker sent back), for each
way a run ends: the verdict, the steps, why there are none, when it started and how long it took. Every page and
file of the grading folder is made from these (tests/grading/test_every_count_a_page_shows.py counts them)."""

from __future__ import annotations

from runbook_lib.grading import grade
from runbook_lib.grading.model import Student
from test_every_count_a_page_shows import STARTED, STEPS, step


def taken(tmp_path, kind, value, seconds=2.5, limit=300.0) -> Student:
    s = Student("kim", "/srv/class/kim", False, [], folder=tmp_path / "kim")
    grade._take(s, kind, value, seconds, limit)
    return s


def verdicts(steps, ok) -> dict:
    return {"ok": ok, "steps": steps, "started_at": STARTED, "notebook_error": None}


def test_a_passed_run(tmp_path):
    s = taken(tmp_path, "ok", verdicts([step(n, "passed") for n in range(1, 9)], True))
    assert (s.label, s.root, s.ok, s.error, s.folder) == ("kim", "/srv/class/kim", True, None, tmp_path / "kim")
    assert [r["id"] for r in s.steps] == STEPS
    assert (s.started_at, s.duration, s.notebook) == (STARTED, 2.5, False)  # no --notebooks: no run.ipynb


def test_a_verdict_that_says_ok_over_a_failed_step_is_not_a_pass(tmp_path):
    s = taken(tmp_path, "ok", verdicts([step(1, "passed"), step(2, "failed")], True))
    assert s.ok is False and s.error is None


def test_a_run_past_the_limit_is_the_students_error_with_the_limit_and_the_root(tmp_path):
    s = taken(tmp_path, "timeout", {"seconds": 7.0}, limit=7.0)
    assert s.ok is False and s.steps == [] and s.error["kind"] == "timeout"
    assert "7 s" in s.error["evalue"] and "7초" in s.error["evalue"] and "/srv/class/kim" in s.error["evalue"]


def test_a_worker_that_died_is_the_students_error_with_its_exit_status(tmp_path):
    s = taken(tmp_path, "kernel", {"status": -9})
    assert s.ok is False and s.steps == [] and s.error["kind"] == "kernel"
    assert "exit status -9" in s.error["evalue"] and "/srv/class/kim" in s.error["evalue"]


def test_a_run_that_raised(tmp_path):
    s = taken(tmp_path, "error", {"ename": "RuntimeError", "evalue": "no verdict"})
    assert (s.ok, s.steps) == (False, [])
    assert s.error == {"kind": "error", "ename": "RuntimeError", "evalue": "no verdict"}


def test_a_notebook_that_did_not_run_leaves_the_verdicts(tmp_path):
    late = {"kind": "timeout", "ename": "CellTimeoutError", "evalue": "a cell timed out"}
    s = taken(tmp_path, "ok", {**verdicts([step(n, "passed") for n in range(1, 9)], True), "notebook_error": late})
    assert (s.ok, s.error, s.notebook_error) == (True, None, late)
