"""DIR/grades.csv: the class as a spreadsheet an LMS imports (Canvas, Moodle, a gradebook): one row a student, one
column a step holding the points the student earned for it, then the total and the maximum.

The header names every column: `student`, then each step that counts as `<number> <id>` (`3 options`), then
`total` and `max_score`. The numbers are results.json's (runbook_lib/grading/score.py, the one rule): a step out
of everyone's total (skipped on a lab) is no column; a step a student's run never reached is 0. UTF-8, commas,
quoted by Python's csv module where a label needs it.
"""

from __future__ import annotations

import csv
import io

from runbook_lib.grading.model import ClassGrade
from runbook_lib.grading.score import _order, scored

STUDENT, TOTAL, MAX = "student", "total", "max_score"


def column(rec: dict) -> str:
    """A step's column: "3 options", or its id alone when that is its number ("pod")."""
    step, sid = rec.get("step"), str(rec.get("id"))
    return sid if str(step) == sid else f"{step} {sid}"


def rows(result: ClassGrade) -> tuple[list[str], list[list[str]]]:
    """(header, rows): the columns and, for every student in the order graded, the points per step and totals."""
    counted = [(s, scored(s.steps, s.points)) for s in result.students]
    steps: dict[str, object] = {}
    for _, marks in counted:
        for m in marks:
            steps.setdefault(column(m.rec), m.rec.get("step"))
    names = sorted(steps, key=lambda name: (_order(steps[name]), name))
    body = []
    for s, marks in counted:
        by = {column(m.rec): m for m in marks}
        body.append([s.label] + [_n(by[name].score) if name in by else "" for name in names]
                    + [_n(sum(m.score for m in marks)), _n(sum(m.max_score for m in marks))])
    return [STUDENT, *names, TOTAL, MAX], body


def _n(value: float) -> str:
    return f"{value:g}"


def render(result: ClassGrade) -> str:
    header, body = rows(result)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(body)
    return out.getvalue()
