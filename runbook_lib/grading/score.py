"""A student's points, on the assignment's fixed total: the one rule every view of the grades reads (results.json and
grades.json, junit.xml, the class page, the class notebook), so the numbers are the same everywhere.

- The total is the assignment's, never what the grading machine could run: the points of the eight steps of
  runbook_lib/lab/student.py's LAB_STEPS (1 each), and of any other step the course file names (the pod, with
  `points: {pod: 1}`). A step outside the assignment that was judged all the same (the pod with `-p smoke
  sandbox` and no points for it) is shown in the student's feedback and the class page, and is no test: turning
  `smoke` on leaves every total as it was.
- A passed step scores its points; a failed one 0. A blocked step (it cannot be judged until an earlier step is
  fixed) scores 0 with "fix step N first": the steps judge their files against the student's own input and
  against the corrected one, so a blocked step is one that truly cannot be judged (runbook_lib/steps/_files.py).
- A skipped step does not apply to a lab (asking containerd, the restart, a pod without `smoke`): it is out of
  the total for everyone, and in no view as a test.
- A step the grading machine could not grade (grade.py: the pod without busybox-static, containerd, runc or
  unshare, or past its time) is skipped for everyone, "not graded", and the run's error says why: the machine's
  failure is never a student's.
- A lab step without a record (the notebook stopped before it) scores 0 of its points: the total stays fixed.
- Points are 1 a lab step and 0 any other step unless the course file (`runbook grade --points course.yaml`)
  says otherwise: ``points: {options: 2, 5: 0.5, pod: 1}``, keyed by a step's id or its number.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from runbook_lib.findings.catalog import say
from runbook_lib.lab.student import LAB_STEPS
from runbook_lib.steps import STEPS
from runbook_lib.steps.status import OUTCOMES, PASSING

POINTS = 1.0
NOT_REACHED = "not_reached"  # the status of a lab step the notebook never recorded


@dataclass(frozen=True)
class Scored:
    rec: dict  # the step's record as the notebook displayed it (a lab step never reached: its id and title)
    score: float
    max_score: float

    @property
    def status(self) -> str | None:
        return self.rec.get("status")

    @property
    def passed(self) -> bool:
        return self.status in PASSING


def in_assignment(points: dict | None, rec: dict) -> bool:
    """The lab's eight steps, and any step the course file names."""
    points = points or {}
    return str(rec.get("id")) in LAB_STEPS or any(str(rec.get(k)) in points for k in ("id", "step"))


def points_of(points: dict | None, rec: dict) -> float:
    """A step's points: the course file's, by id then by number, else 1 for a lab step and 0 for any other."""
    points = points or {}
    for key in (str(rec.get("id")), str(rec.get("step"))):
        if key in points:
            return float(points[key])
    return POINTS if str(rec.get("id")) in LAB_STEPS else 0.0


def scored(steps: list[dict], points: dict | None = None) -> list[Scored]:
    """Every step that counts, in the lab's order: the records that apply, then the lab steps never reached."""
    by_id = {str(r.get("id")): r for r in steps}
    out = []
    for rec in steps:
        if rec.get("status") in OUTCOMES and not OUTCOMES[rec["status"]].scored:
            continue  # skipped: does not apply here, out of the total for everyone (steps/status.py's `scored`)
        if not in_assignment(points, rec):
            continue  # a step the assignment gives no points (the pod without `points: {pod: ...}`): no test
        worth = points_of(points, rec)
        out.append(Scored(rec, worth if rec.get("status") in PASSING else 0.0, worth))
    for step in STEPS:
        if step.id in LAB_STEPS and step.id not in by_id:
            rec = {"step": step.number, "id": step.id, "title": step.title.as_dict(), "status": NOT_REACHED,
                   "message": say("grading.step_not_reached").as_dict(), "problems": []}
            out.append(Scored(rec, 0.0, points_of(points, rec)))
    return sorted(out, key=lambda s: _order(s.rec.get("step")))


def total(steps: list[dict], points: dict | None = None) -> tuple[float, float]:
    """(score, max_score) of a student's steps."""
    counted = scored(steps, points)
    return sum(s.score for s in counted), sum(s.max_score for s in counted)


def _order(step) -> float:
    try:
        return float(step)
    except (TypeError, ValueError):
        return float("inf")


def load_points(path: str | Path) -> dict[str, float]:
    """The course file's per-step points, checked: a YAML mapping `points:` of a step's id or number to a
    number of points (0 or more). Anything else is a ValueError naming the file and what was expected."""
    import yaml

    from runbook_lib.fs.given import read_given, yaml_error
    from runbook_lib.fs.yamldoc import safe_load

    name = say("label.points_file")
    text = read_given(str(path), name, "--points course.yaml")
    try:
        doc = safe_load(text) if text.strip() else None
    except yaml.YAMLError as exc:
        raise yaml_error(exc, str(path), name) from None
    table = doc.get("points") if isinstance(doc, dict) else None
    if not isinstance(table, dict):
        raise ValueError(str(say("grading.points.not_a_table", file=path)))
    known = {s.id for s in STEPS} | {str(s.number) for s in STEPS}
    out = {}
    for key, value in table.items():
        if str(key) not in known:
            raise ValueError(str(say("grading.points.unknown_step", file=path, step=key,
                                     steps=", ".join(f"{s.number} {s.id}" for s in STEPS if s.id in LAB_STEPS))))
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ValueError(str(say("grading.points.not_a_number", file=path, step=key, value=value)))
        out[str(key)] = float(value)
    return out
