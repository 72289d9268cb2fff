"""A grading folder as `runbook summary`'s table: what `runbook grade --out DIR` wrote in DIR/grades.json, one row
a student, one column a step, each failed or blocked step's message. A grading without `--notebooks` leaves no
run manifests, so its grades.json is what the summary reads (runbook_lib/evidence/summary.py reads manifests)."""

from __future__ import annotations

import json
from pathlib import Path

from runbook_lib.evidence.summary import NOT_RUN, Row, Table
from runbook_lib.findings.catalog import say
from runbook_lib.grading.model import GRADES_NAME, GRADES_SCHEMA
from runbook_lib.steps.status import outcome


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
        for t in _tests(s):
            steps.setdefault(t["id"], t.get("step"))
    table = Table(columns=[(i, f"{n} {i}") for i, n in steps.items()], students=True)
    for s in sorted(students, key=lambda s: str(_extra(s).get("label") or "")):
        tests = {t["id"]: t for t in _tests(s)}
        cells = {i: outcome(tests[i]["runbook_status"]).cell if i in tests else NOT_RUN for i in steps}
        table.rows.append(Row(str(_extra(s).get("label") or "?"), "", bool(_extra(s).get("ok")), "check", "",
                              cells, _failures(s, tests)))
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


def _tests(student: dict) -> list[dict]:
    """A student's scored steps (the tests whose extra_data names a step), each with its id and runbook status."""
    out = []
    for t in student.get("tests") or []:
        extra = _extra(t) if isinstance(t, dict) else {}
        if extra.get("id") and extra.get("runbook_status") and extra.get("step") is not None:
            out.append({**extra, "output": str(t.get("output") or "")})
    return out


def _failures(student: dict, tests: dict[str, dict]) -> list[dict[str, str]]:
    """Each failed or blocked step's message, "[step id] " before it, as the summary of runs shows them; a student
    whose run failed with no failed step (the grading machine's error) by that error."""
    out = []
    for t in tests.values():
        message = t.get("message")
        if t["runbook_status"] in ("failed", "blocked") and isinstance(message, dict):
            head = f"[{t['step']} {t['id']}] "
            out.append({"ko": head + str(message.get("ko", "")), "en": head + str(message.get("en", ""))})
    if not out and not _extra(student).get("ok"):
        for err in _extra(student).get("run_errors") or []:
            what = err.get("what") if isinstance(err, dict) else None
            if isinstance(what, dict):
                out.append({"ko": str(what.get("ko", "")), "en": str(what.get("en", ""))})
    return out
