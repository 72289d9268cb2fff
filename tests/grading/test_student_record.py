"""What one student's grading run says, field by field (grade.student_from), for each way a run ends: the
verdict, the steps shown, why it stopped, when it started and how long it took. Every page and file of the
grading folder is made from these (tests/grading/test_every_count_a_page_shows.py counts them)."""

from __future__ import annotations

import datetime as dt
import json

from runbook_lib.evidence.archive import RunResult, build_manifest
from runbook_lib.evidence.parallel import Job
from runbook_lib.grading import grade
from test_every_count_a_page_shows import STARTED, STEPS, notebook, step

STOPPED = {"kind": "papermill", "ename": "DeadKernelError", "evalue": "Kernel died"}


def student(tmp_path, steps, ok, error, *, summary_steps=None, manifest_error="same"):
    job = Job("/srv/class/kim", "kim", {"mode": "check"}, run_dir=tmp_path / "kim", kind="grade")
    job.run_dir.mkdir()
    # summary_steps: the summary's own list of every step (a record may be missing above it)
    nb = notebook(steps, ok, summary_steps=summary_steps)
    (job.run_dir / grade.NOTEBOOK_NAME).write_text(json.dumps(nb))
    manifest = build_manifest(label="kim", notebook=job.run_dir / "run.ipynb", parameters=job.params,
                              started=STARTED, ended=STARTED + dt.timedelta(seconds=2.5), nb=nb,
                              error=error if manifest_error == "same" else manifest_error, version="0", kind="grade")
    return grade.student_from(job, RunResult(job.run_dir, manifest["ok"], manifest))


def test_a_passed_run(tmp_path):
    s = student(tmp_path, [step(n, "passed") for n in range(1, 9)], True, None)
    assert (s.label, s.root, s.ok, s.error, s.folder) == ("kim", "/srv/class/kim", True, None, tmp_path / "kim")
    assert [r["id"] for r in s.steps] == STEPS
    assert (s.started_at, s.duration) == (STARTED.isoformat(), 2.5)


def test_a_stopped_notebook_is_a_failed_student_with_the_reason(tmp_path):
    s = student(tmp_path, [step(1, "passed"), step(2, "passed")], None, STOPPED)
    assert s.ok is False and s.error == STOPPED
    assert [r["status"] for r in s.steps] == ["passed", "passed"]


def test_no_summary_and_no_error_still_says_why(tmp_path):
    s = student(tmp_path, [step(1, "passed")], None, None)
    assert s.ok is False
    assert s.error == {"ename": "NoSummary", "evalue": "the notebook stopped before its summary"}


def test_a_summary_that_says_ok_over_a_failed_step_is_not_a_pass(tmp_path):
    s = student(tmp_path, [step(1, "passed"), step(2, "failed")], True, None)
    assert s.ok is False and s.error is None


def test_the_summary_lists_the_steps(tmp_path):
    shown = [step(1, "passed")]
    every = [step(n, "passed") for n in range(1, 9)]
    s = student(tmp_path, shown, True, None, summary_steps=every)
    assert s.steps == every and s.ok is True
    (tmp_path / "second").mkdir()
    empty = student(tmp_path / "second", shown, True, None, summary_steps=[])
    assert empty.steps == shown  # a summary without its list keeps the records shown above it


def test_a_run_that_raised(tmp_path):
    job = Job("/srv/class/lee", "lee", {}, run_dir=tmp_path / "lee", kind="grade")
    s = grade.student_from(job, RuntimeError("no kernel"))
    assert (s.label, s.root, s.ok, s.steps, s.folder) == ("lee", "/srv/class/lee", False, [], tmp_path / "lee")
    assert s.error == {"ename": "RuntimeError", "evalue": "no kernel"}
