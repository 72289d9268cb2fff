"""Every count a page shows, for a class whose students end every way a grading run can end (issue 25: "all 2
students passed" on a class where one student's notebook stopped passed the suite, behind an assertion whose
second half always held).

The class: a student who passed, one whose step 3 failed, one whose grading process died (no verdicts), one whose
steps were all skipped but step 3, one whose run raised. Only the first passed, and every page says so by the
numbers: the class page's line, its rows and its mistakes table, grades.json, grades.csv and junit.xml. The truth
each count is compared with is this file's list of students, never what the grading model computed. Each student
is taken as grade_class takes what its worker said (grade._take: the worker's kind and value)."""

from __future__ import annotations

import csv
import json
import re
import xml.etree.ElementTree as ET

import pytest

from runbook_lib.grading import grade
from runbook_lib.grading.class_view import page
from runbook_lib.grading.model import ClassGrade, Student

STEPS = ["prepare", "runtime", "options", "default", "parse", "cdi", "runtimeclass", "report"]
STARTED = "2026-01-02T03:04:05+00:00"


def step(n: int, status: str) -> dict:
    problems = ([{"code": "options.systemd_cgroup.wrong", "what": {"ko": "값이 틀렸습니다", "en": "the value is wrong"}}]
                if status == "failed" else [])
    return {"step": n, "id": STEPS[n - 1], "title": {"ko": f"{n}단계", "en": f"step {n}"}, "status": status,
            "message": {"ko": "메시지", "en": "message"}, "files": [], "problems": problems}


# label -> (what the student's worker said: its kind and value, passed)
CLASS = {
    "a-passed": (("ok", {"ok": True, "steps": [step(n, "passed") for n in range(1, 9)]}), True),
    "b-failed-step": (("ok", {"ok": False, "steps": [step(1, "passed"), step(2, "passed"), step(3, "failed")]}), False),
    "c-died": (("kernel", {"status": -9}), False),
    "d-refused": (("ok", {"ok": False, "steps": [step(n, "failed" if n == 3 else "skipped") for n in range(1, 9)]}),
                  False),
    "e-raised": (("error", {"ename": "RuntimeError", "evalue": "no verdict"}), False),
}
PASSED = sorted(label for label, (_, ok) in CLASS.items() if ok)
FAILED = sorted(label for label, (_, ok) in CLASS.items() if not ok)
WITH_STEP_3_WRONG = ["b-failed-step", "d-refused"]


@pytest.fixture  # made for each test (a fraction of a second): mutmut sees every test reach the grading model
def graded(tmp_path_factory):
    return build_class(tmp_path_factory.mktemp("grades"))


def build_class(out):
    """CLASS graded into `out`, every output file written."""
    result = ClassGrade(out)
    for label, ((kind, value), _) in CLASS.items():
        student = Student(label, f"/srv/class/{label}", False, [], folder=out / label)
        if kind == "ok":
            value = {**value, "started_at": STARTED, "notebook_error": None}
        grade._take(student, kind, value, 3.0, 300.0)
        result.students.append(student)
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
    assert verdicts == ["통과 / passed" if CLASS[label][1] else "실패 / failed" for label in CLASS]
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


def test_grades_csv_counts_the_same(graded):
    with open(graded.out / grade.CSV_NAME, encoding="utf-8", newline="") as f:
        table = list(csv.DictReader(f))
    assert [r["student"] for r in table] == list(CLASS)
    full = [r["student"] for r in table if r["total"] == r["max_score"]]
    assert full == PASSED
    died = next(r for r in table if r["student"] == "c-died")
    assert [died[f"{n} {i}"] for n, i in enumerate(STEPS, 1)] == ["0"] * 8 and died["max_score"] == "8"
