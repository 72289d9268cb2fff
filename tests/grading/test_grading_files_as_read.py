"""The grading folder as the programs that take it read it: grades.json and every student's results.json as bytes
(UTF-8 text a person can read, not `\\uXXXX` escapes; two-space indent; one line break at the end), each student's
results.json that student's own; and what a student's record keeps from a run that left a field out, or was read
in a process whose locale is not UTF-8. In-process (the grading model of docs/TESTING.md's mutation testing)."""

from __future__ import annotations

import datetime as dt
import json
import locale

import pytest

from runbook_lib.evidence.archive import RunResult, build_manifest
from runbook_lib.evidence.parallel import Job
from runbook_lib.grading import grade
from test_every_count_a_page_shows import CLASS, STARTED, build_class, notebook, step


def test_grades_json_is_utf8_text_with_a_two_space_indent(tmp_path):
    result = build_class(tmp_path)
    data = (tmp_path / grade.GRADES_NAME).read_bytes()
    text = data.decode("utf-8")
    assert "\\u" not in text and "실패 / failed" in text  # Korean as itself: a person reads grades.json too
    lines = text.split("\n")
    assert lines[0] == "{" and lines[1] == '  "schema": "nvidia-runtime-runbook/grades/1",'
    assert lines[-2:] == ["}", ""]  # one line break after the closing brace, no more
    assert json.loads(data) == {"schema": "nvidia-runtime-runbook/grades/1", "ok": False, "errors": [],
                                "students": json.loads(text)["students"]}  # errors: the grading machine's (none)
    assert [s["extra_data"]["label"] for s in json.loads(data)["students"]] == [s.label for s in result.students]


def test_each_students_results_json_is_that_students_own(tmp_path):
    build_class(tmp_path)
    grades = json.loads((tmp_path / grade.GRADES_NAME).read_text(encoding="utf-8"))
    for label, (_steps, _ok, _error, passed) in CLASS.items():
        data = (tmp_path / label / grade.RESULTS_NAME).read_bytes()
        mine = json.loads(data)
        assert data.decode("utf-8").startswith('{\n  "score": ') and data.endswith(b"}\n"), label
        assert mine["extra_data"]["label"] == label and mine["extra_data"]["ok"] is passed
        assert mine["output"].startswith(f"{label}: {'통과 / passed' if passed else '실패 / failed'} (")
        assert mine == next(s for s in grades["students"] if s["extra_data"]["label"] == label)


def _student(tmp_path, steps, ok, manifest_error, **manifest_changes):
    job = Job("/srv/class/kim", "kim", {"mode": "check"}, run_dir=tmp_path / "kim", kind="grade")
    job.run_dir.mkdir()
    nb = notebook(steps, ok)
    (job.run_dir / grade.NOTEBOOK_NAME).write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    manifest = build_manifest(label="kim", notebook=job.run_dir / "run.ipynb", parameters=job.params,
                              started=STARTED, ended=STARTED + dt.timedelta(seconds=2), nb=nb,
                              error=manifest_error, version="0", kind="grade")
    for key, value in manifest_changes.items():
        if value is None:
            manifest.pop(key, None)
        else:
            manifest[key] = value
    return grade.student_from(job, RunResult(job.run_dir, manifest["ok"], manifest))


def test_a_recorded_summary_is_the_verdict_even_when_the_run_reported_an_error(tmp_path):
    # the notebook reached its summary; the run's error came after it (a later cell, the archive): the student's
    # record is the summary's, with no "stopped" reason that its page would show
    late = {"kind": "papermill", "ename": "CellTimeoutError", "evalue": "a cell after the summary timed out"}
    s = _student(tmp_path, [step(n, "passed") for n in range(1, 9)], True, late)
    assert (s.ok, s.error) == (True, None)


def test_a_manifest_without_a_duration_is_a_run_of_no_known_length(tmp_path):
    s = _student(tmp_path, [step(1, "passed")], True, None, duration_seconds=None)
    assert (s.duration, s.started_at) == (0.0, STARTED.isoformat())


def test_the_notebook_is_read_as_utf8_whatever_the_locale(tmp_path):
    steps = [step(1, "passed")]  # its records hold Korean text ("1단계", "메시지")
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")  # an ASCII locale, as a bare `LANG=C` service has
    try:
        if locale.getpreferredencoding(False).lower().replace("-", "") in ("utf8", "utf_8"):
            pytest.fail("the C locale still reads as UTF-8 here: this test could not fail")
        s = _student(tmp_path, steps, True, None)
    finally:
        locale.setlocale(locale.LC_CTYPE, before)
    assert s.ok is True and s.steps[0]["title"] == {"ko": "1단계", "en": "step 1"}
