"""The grades of a class as data: what every view of them (the class page, a student's feedback, results.json,
junit.xml, the class notebook) reads. The views import this module, never grade.py, which writes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from runbook_lib.findings.problem import words
from runbook_lib.steps import status
from runbook_lib.steps.base import BLOCKED, BLOCKING_CODES  # noqa: F401 - BLOCKED: gradescope and junit read it here

FEEDBACK_NAME = "feedback.html"
RESULTS_NAME = "results.json"
GRADES_NAME = "grades.json"
JUNIT_NAME = "junit.xml"
INDEX_NAME = "index.html"
CSV_NAME = "grades.csv"
NOTEBOOK_NAME = "run.ipynb"  # `runbook grade --notebooks`: the student's notebook as papermill executed it
GRADES_SCHEMA = "nvidia-runtime-runbook/grades/1"
# From the one status mapping (runbook_lib/steps/status.py); the points are runbook_lib/grading/score.py's.
PASSING = status.PASSING


def blocked_words(rec: dict) -> dict:
    """"fix step N first" (the catalog's status.blocked) for a blocked step's record, as {ko, en}."""
    step = next(((p.get("values") or {}).get("step") for p in rec.get("problems") or []
                 if p.get("code") in BLOCKING_CODES), None)
    return words("status.blocked", step=step if step is not None else "?")[0].as_dict()


def root_causes(rec: dict) -> list[dict]:
    """A failed step's findings that are its own (not an earlier step's, named again)."""
    return [p for p in rec.get("problems") or [] if p.get("code") not in BLOCKING_CODES]


@dataclass
class Student:
    label: str
    root: str
    ok: bool
    steps: list[dict]  # the step records of the check run, as the notebook displays them (problems included)
    error: dict | None = None  # why the student's check run gave no verdicts, when it did not
    folder: Path | None = None  # DIR/<label>/
    started_at: str | None = None  # when the student's check run started (ISO 8601, UTC)
    duration: float = 0.0  # seconds
    points: dict = field(default_factory=dict)  # the course file's points per step id or number (score.py)
    notebook: bool = False  # DIR/<label>/run.ipynb is there (`runbook grade --notebooks`)
    notebook_error: dict | None = None  # why that notebook did not run (the grading machine's error: machine.py)

    def failed_steps(self) -> list[dict]:
        return [s for s in self.steps if s.get("status") == "failed"]

    def link(self, name: str = FEEDBACK_NAME) -> str:
        """A link relative to the output folder (DIR/index.html, the class notebook beside DIR)."""
        return f"{self.label}/{name}"

    def href(self, name: str = FEEDBACK_NAME) -> str:
        """link() as a URL for an HTML page: a folder name may hold '#', '?', '%' or a space (`kim#2/` is not a
        fragment)."""
        from urllib.parse import quote

        return f"{quote(self.label, safe='')}/{quote(name)}"


@dataclass
class ClassGrade:
    out: Path
    students: list[Student] = field(default_factory=list)
    # the run's own errors, the grading machine's (runbook_lib/grading/machine.py): each once, with its fix and
    # the students it touched ({code, what, fix, students}); never a student's failed step
    errors: list[dict] = field(default_factory=list)

    @property
    def all_ok(self) -> bool:
        return bool(self.students) and all(s.ok for s in self.students)

    def step_ids(self) -> list[tuple[str, object, dict]]:
        """(id, step number, title) of every step any student's check run recorded, in step order."""
        seen: dict[str, tuple[object, dict]] = {}
        for s in self.students:
            for rec in s.steps:
                seen.setdefault(str(rec.get("id")), (rec.get("step"), rec.get("title") or {}))
        return sorted(((i, n, t) for i, (n, t) in seen.items()), key=lambda x: (_order(x[1]), x[0]))


def _order(step) -> float:
    try:
        return float(step)
    except (TypeError, ValueError):
        return float("inf")
