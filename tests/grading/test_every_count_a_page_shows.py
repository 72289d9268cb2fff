"""Every count a page shows, for a class whose students end every way a grading run can end (issue 25: "all 2
students passed" on a class where one student's notebook stopped passed the suite, behind an assertion whose
second half always held).

The class: a student who passed, one whose step 3 failed, one whose notebook stopped after two passed steps
(the kernel died: no summary), one whose plan was refused, one whose run raised before any notebook. Only the
first passed, and every page says so by the numbers: the class page's line, its rows and its mistakes table,
grades.json, junit.xml, and the summary of the archive (`runbook summary`) in text, markdown and HTML. The truth
each count is compared with is this file's list of students, never what the grading model computed."""

from __future__ import annotations

import datetime as dt
import json
import re
import xml.etree.ElementTree as ET

import pytest

from runbook_lib.grading import grade
from runbook_lib.evidence import summary
from runbook_lib.evidence.archive import RunResult, build_manifest
from runbook_lib.grading.class_view import page
from runbook_lib.evidence.parallel import Job
from runbook_lib.engine.result import STEP_MIME, SUMMARY_MIME, record_text

STEPS = ["prepare", "runtime", "options", "default", "parse", "cdi", "runtimeclass", "report"]
STARTED = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)


def step(n: int, status: str) -> dict:
    problems = ([{"code": "options.systemd_cgroup.wrong", "what": {"ko": "값이 틀렸습니다", "en": "the value is wrong"}}]
                if status == "failed" else [])
    return {"step": n, "id": STEPS[n - 1], "title": {"ko": f"{n}단계", "en": f"step {n}"}, "status": status,
            "message": {"ko": "메시지", "en": "message"}, "files": [], "problems": problems}


# label -> (the step records the notebook showed, its summary's ok (None: no summary), the run's error, passed)
CLASS = {
    "a-passed": ([step(n, "passed") for n in range(1, 9)], True, None, True),
    "b-failed-step": ([step(1, "passed"), step(2, "passed"), step(3, "failed")], False,
                      {"kind": "cell", "ename": "StepFailed", "evalue": "step 3 failed"}, False),
    "c-stopped": ([step(1, "passed"), step(2, "passed")], None,
                  {"kind": "papermill", "ename": "DeadKernelError", "evalue": "Kernel died"}, False),
    "d-refused": ([step(n, "failed" if n == 3 else "skipped") for n in range(1, 9)], False,
                  {"kind": "cell", "ename": "Refused", "evalue": "the plan refused"}, False),
    "e-raised": (None, None, None, False),  # the run itself raised: no notebook at all
}
PASSED = sorted(label for label, (*_, ok) in CLASS.items() if ok)
FAILED = sorted(label for label, (*_, ok) in CLASS.items() if not ok)
WITH_STEP_3_WRONG = ["b-failed-step", "d-refused"]


def notebook(steps: list[dict], ok: bool | None, *, summary_steps: list[dict] | None = None) -> dict:
    """A notebook as the runbook writes it: each record its JSON text (engine/result.py: record_text)."""
    outputs = [{"output_type": "display_data", "metadata": {}, "data": {STEP_MIME: record_text(r)}} for r in steps]
    if ok is not None:
        summary = {"ok": ok, "mode": "check", "root": "/", "steps": steps if summary_steps is None else summary_steps}
        outputs.append({"output_type": "display_data", "metadata": {}, "data": {SUMMARY_MIME: record_text(summary)}})
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
            "cells": [{"cell_type": "code", "source": "", "metadata": {}, "outputs": outputs, "execution_count": 1}]}


@pytest.fixture  # made for each test (a fraction of a second): mutmut sees every test reach the grading model
def graded(tmp_path_factory):
    return build_class(tmp_path_factory.mktemp("grades"))


def build_class(out):
    """CLASS graded into `out`, every output file written."""
    result = grade.ClassGrade(out)
    for label, (steps, ok, error, _) in CLASS.items():
        job = Job(f"/srv/class/{label}", label, {"mode": "check"}, run_dir=out / label, kind="grade")
        job.run_dir.mkdir()
        if steps is None:
            result.students.append(grade.student_from(job, RuntimeError("no kernel")))
            continue
        nb = notebook(steps, ok)
        (job.run_dir / grade.NOTEBOOK_NAME).write_text(json.dumps(nb))
        manifest = build_manifest(label=label, notebook=job.run_dir / "run.ipynb", parameters=job.params,
                                  started=STARTED, ended=STARTED + dt.timedelta(seconds=3), nb=nb, error=error,
                                  version="0", kind="grade")
        (job.run_dir / "manifest.json").write_text(json.dumps(manifest))
        result.students.append(grade.student_from(job, RunResult(job.run_dir, manifest["ok"], manifest)))
    grade.write_outputs(result)
    return result


def test_the_grading_model_passes_exactly_the_students_who_passed(graded):
    assert sorted(s.label for s in graded.students if s.ok) == PASSED
    assert graded.all_ok is False


def test_the_class_page_counts(graded):
    text = (graded.out / grade.INDEX_NAME).read_text(encoding="utf-8")
    assert text == page(graded)
    n, bad = len(CLASS), len(FAILED)
    line = re.search(r"<h1>[^<]*</h1><p>([^<]*)<br>([^<]*)</p>", text).groups()
    assert line == (f"학생 {n}명 중 {bad}명이 고칠 것이 있습니다.", f"{bad} of {n} students have something to fix.")
    verdicts = re.findall(r'padding:2px 8px">(통과 / passed|실패 / failed)</td><td', text)
    assert verdicts == ["통과 / passed" if CLASS[label][3] else "실패 / failed" for label in CLASS]
    mistakes = re.findall(r'<tr><td style="[^"]*">(\d+)</td><td style="[^"]*">3 options</td>.*?<small>([^<]*)</small></td>',
                          text)
    assert mistakes == [(str(len(WITH_STEP_3_WRONG)), ", ".join(WITH_STEP_3_WRONG))]


def test_grades_json_and_junit_count_the_same(graded):
    grades = json.loads((graded.out / grade.GRADES_NAME).read_text(encoding="utf-8"))
    assert {s["extra_data"]["label"]: s["extra_data"]["ok"] for s in grades["students"]} == \
        {label: ok for label, (*_, ok) in CLASS.items()}
    assert grades["ok"] is False
    suites = ET.fromstring((graded.out / grade.JUNIT_NAME).read_bytes())
    failing = sorted(s.get("name") for s in suites.iter("testsuite")
                     if int(s.get("failures")) + int(s.get("errors")))
    assert failing == FAILED


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_the_archive_summary_counts(graded, fmt):
    table = summary.summarize(graded.out)
    shown = summary.render(table, fmt)
    n_archived = len(CLASS) - 1  # the student whose run raised left no manifest and no notebook
    bad = len(FAILED) - 1
    assert f"학생 {n_archived}명 중 {bad}명 실패 / {bad} of {n_archived} students failed" in shown, shown
    assert sorted(r.label for r in table.rows if r.ok) == PASSED
