"""Grades in Gradescope's results.json format (otter-grader writes the same shape), so a course platform can
take them as they are: per student `score`, `max_score`, `output` and `tests[]`, each test with `name`,
`score`, `max_score`, `status` ("passed" / "failed"), `output`; what the runbook knows beyond that sits in
`extra_data`. The shape is documented in docs/GRADING.md and pinned by tests/fixtures/schemas/.

Points: a step is worth 1 point; a skipped step (step 9 without containerd, the restart in a lab) is worth 0,
so a lab sandbox can still reach full marks; a blocked step (it waits for an earlier step's fix) is worth 0 too,
its output saying which step to fix first, so one mistake costs one point.
"""

from __future__ import annotations

from runbook_lib.findings.text import code, step_name, step_text, where
from runbook_lib.grading.model import BLOCKED, GRADES_SCHEMA, NOT_SCORED, PASSING, ClassGrade, Student, blocked_words
from runbook_lib.findings.problem import Problem
from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import bilingual
from runbook_lib.steps.status import verdict

POINTS = 1.0


def _skipped_text() -> str:
    return str(Problem.of("feedback.skipped").what)


def _test(rec: dict) -> dict:
    status = rec.get("status")
    max_score = 0.0 if status in NOT_SCORED else POINTS
    passed = status in PASSING or status in NOT_SCORED
    problems = rec.get("problems") or []
    output = step_text(rec) if status != "skipped" else _skipped_text()  # a skipped step's reason is the operator's
    if status == BLOCKED:  # not counted: the earlier step it waits for is
        said = blocked_words(rec)
        output = f"{bilingual(said)}\n{output}"
    return {
        "name": step_name(rec),
        "number": str(rec.get("step")),
        "score": max_score if passed else 0.0,
        "max_score": max_score,
        "status": "passed" if passed else "failed",
        "output": output,
        "tags": [str(rec.get("id"))],
        "extra_data": {
            "step": rec.get("step"), "id": rec.get("id"), "runbook_status": status,
            "findings": [{"where": where(p), "path": p.get("path"), "line": p.get("line"), "col": p.get("col"),
                          "code": code(p), "what": p.get("what"), "why": p.get("why"), "fix": p.get("fix")}
                         for p in problems],
        },
    }


def student_results(s: Student) -> dict:
    """One student's results.json (Gradescope's format)."""
    tests = [_test(r) for r in s.steps]
    if s.error:  # the notebook stopped before its summary: one failed test says why, worth what is missing
        tests.append({"name": f"notebook: {bilingual(say('gradescope.unfinished'))}", "score": 0.0,
                      "max_score": POINTS, "status": "failed", "tags": ["notebook"],
                      "output": f"{s.error.get('ename')}: {s.error.get('evalue')}",
                      "extra_data": {"id": "notebook", "runbook_status": "error", "findings": []}})
    score = sum(t["score"] for t in tests)
    top = sum(t["max_score"] for t in tests)
    return {
        "score": score,
        "max_score": top,
        "output": f"{s.label}: {bilingual(verdict(s.ok))} ({score:g}/{top:g})",
        "tests": tests,
        "extra_data": {"label": s.label, "root": s.root, "ok": s.ok, "feedback": s.link(),
                       "notebook": s.link("run.ipynb")},
    }


def class_grades(result: ClassGrade) -> dict:
    """grades.json: every student's results.json, in the order the roots were given."""
    students = [student_results(s) for s in result.students]
    return {
        "schema": GRADES_SCHEMA,
        "ok": result.all_ok,
        "students": students,
    }
