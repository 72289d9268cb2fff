"""A grading folder as `runbook summary`'s table: what `runbook grade --out DIR` wrote in DIR/grades.json, one row
a student, one column a step, each failed or blocked step's message. A grading without `--notebooks` leaves no
run manifests, so its grades.json is what the summary reads (runbook_lib/evidence/summary.py reads manifests)."""

from __future__ import annotations

import json
from pathlib import Path

from runbook_lib.evidence.summary import Row, Table, step_cells, step_failures
from runbook_lib.findings.catalog import say
from runbook_lib.grading.model import GRADES_NAME, GRADES_SCHEMA


def grades_table(folder: Path) -> Table | None:
    """The table of the grading in ``folder``; None when the folder holds no grades.json."""
    path = folder / GRADES_NAME
    if not path.is_file():
        return None
    try:
        grades = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        _refuse(say("grading.summary.unreadable", path=path, error=_reason(exc)))
    if not isinstance(grades, dict) or grades.get("schema") != GRADES_SCHEMA:
        _refuse(say("grading.summary.not_grades", path=path, schema=GRADES_SCHEMA))
    students = [s for s in grades.get("students") or [] if isinstance(s, dict)]
    steps: dict[str, object] = {}  # step id -> its number, in the order the first student's tests have them
    for s in students:
        for rec in _steps(s):
            steps.setdefault(rec["id"], rec["step"])
    table = Table(columns=[(i, f"{n} {i}") for i, n in steps.items()], students=True)
    for s in sorted(students, key=lambda s: str(_extra(s).get("label") or "")):
        table.rows.append(Row(str(_extra(s).get("label") or "?"), "", bool(_extra(s).get("ok")), "check", "",
                              step_cells(_steps(s), list(steps)), _failures(s)))
    return table


def _refuse(said) -> None:
    """A grades.json the summary cannot read: what is wrong, and the fix (grade again), as ValueError's text."""
    fix = say("grading.summary.grade_again")
    raise ValueError(f"{said.ko}\n{said.en}\n{fix.ko}\n{fix.en}")


def _reason(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"line {exc.lineno}, column {exc.colno}: {exc.msg}"
    return str(exc)


def _extra(record: dict) -> dict:
    extra = record.get("extra_data")
    return extra if isinstance(extra, dict) else {}


def _steps(student: dict) -> list[dict]:
    """A student's scored steps as step records (step, id, status, message): the tests whose extra_data names a
    step; the `grading` test of a student the grading could not judge names none."""
    out = []
    for t in student.get("tests") or []:
        extra = _extra(t) if isinstance(t, dict) else {}
        if extra.get("id") and extra.get("runbook_status") and extra.get("step") is not None:
            out.append({"step": extra["step"], "id": extra["id"], "status": extra["runbook_status"],
                        "message": extra.get("message")})
    return out


def _failures(student: dict) -> list[dict[str, str]]:
    """Each failed or blocked step's message, as the summary of runs shows them; a student who failed with no
    failed step (the grading machine's error) by that error."""
    if _extra(student).get("ok"):
        return []
    out = step_failures(_steps(student))
    if not out:
        for err in _extra(student).get("run_errors") or []:
            what = err.get("what") if isinstance(err, dict) else None
            if isinstance(what, dict):
                out.append({"ko": str(what.get("ko", "")), "en": str(what.get("en", ""))})
    return out
