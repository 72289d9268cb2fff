"""Grades in Gradescope's results.json format (otter-grader writes the same shape), so a course platform can
take them as they are: per student `score`, `max_score`, `output` and `tests[]`, each test with `name`,
`score`, `max_score`, `status` ("passed" / "failed"), `output`; what the runbook knows beyond that sits in
`extra_data`. The shape is documented in docs/GRADING.md and pinned by tests/fixtures/schemas/.

Points: runbook_lib/grading/score.py, the one rule of every view: every student out of the lab's fixed total,
a blocked step 0 of its points with "fix step N first", a step that does not apply to a lab (skipped) out of the
total for everyone and no test at all.
"""

from __future__ import annotations

from runbook_lib.findings.text import code, step_name, step_text, where
from runbook_lib.grading.model import BLOCKED, GRADES_SCHEMA, NOTEBOOK_NAME, ClassGrade, Student, blocked_words
from runbook_lib.grading.score import Scored, scored, total
from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import bilingual
from runbook_lib.steps.status import verdict


def _test(counted: Scored) -> dict:
    rec = counted.rec
    status = rec.get("status")
    problems = rec.get("problems") or []
    output = step_text(rec)
    if status == BLOCKED:  # 0 of its points: it waits for the earlier step, whose fix comes first
        output = f"{bilingual(blocked_words(rec))}\n{output}"
    return {
        "name": step_name(rec),
        "number": str(rec.get("step")),
        "score": counted.score,
        "max_score": counted.max_score,
        "status": "passed" if counted.passed else "failed",
        "output": output,
        "tags": [str(rec.get("id"))],
        "extra_data": {
            "step": rec.get("step"), "id": rec.get("id"), "runbook_status": status,
            "message": rec.get("message"),  # the step's result, as its check cell and `runbook summary` say it
            "findings": [{"where": where(p), "path": p.get("path"), "line": p.get("line"), "col": p.get("col"),
                          "code": code(p), "what": p.get("what"), "why": p.get("why"), "fix": p.get("fix")}
                         for p in problems],
        },
    }


def student_results(s: Student, run_errors: list[dict] = ()) -> dict:
    """One student's results.json (Gradescope's format); ``run_errors``: the run's own errors (the grading
    machine's), said in its output and extra_data, never scored."""
    tests = [_test(c) for c in scored(s.steps, s.points)]
    if s.error:  # the check run gave no verdicts: one more test says why (the steps it missed score 0)
        tests.append({"name": f"grading: {bilingual(say('gradescope.unfinished'))}", "score": 0.0,
                      "max_score": 0.0, "status": "failed", "tags": ["grading"],
                      "output": f"{s.error.get('ename')}: {s.error.get('evalue')}",
                      "extra_data": {"id": "grading", "runbook_status": "error", "findings": []}})
    score, top = total(s.steps, s.points)
    output = f"{s.label}: {bilingual(verdict(s.ok))} ({score:g}/{top:g})"
    for e in run_errors:  # the grading machine's error: the run's, said to every student, charged to none
        output += f"\n{bilingual(say('grade.machine.heading'))}: {bilingual(e['what'])}"
    return {
        "score": score,
        "max_score": top,
        "output": output,
        "tests": tests,
        "extra_data": {"label": s.label, "root": s.root, "ok": s.ok, "feedback": s.link(),
                       "notebook": s.link(NOTEBOOK_NAME) if s.notebook else None,
                       "run_errors": list(run_errors)},
    }


def class_grades(result: ClassGrade, students: list[dict] | None = None) -> dict:
    """grades.json: every student's results.json, in the order the roots were given, and the run's own errors
    (the grading machine's, runbook_lib/grading/machine.py: each once, with its fix). ``students``: those
    results.json already made."""
    if students is None:
        students = [student_results(s, result.errors) for s in result.students]
    return {
        "schema": GRADES_SCHEMA,
        "ok": result.all_ok and not result.errors,
        "errors": list(result.errors),
        "students": students,
    }
