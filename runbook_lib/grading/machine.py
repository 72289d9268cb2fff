"""The grading machine's failures: one error of the whole run, never a student's failed step.

`-p smoke sandbox` starts a throw-away containerd on the grader's machine for every student (steps/pod.py): a
machine without busybox-static, containerd, runc or unshare (or not root) cannot start a pod for anyone, and a
pod that runs past `smoke_timeout` ran out of the grader's time, not the student's, and what a pod check left
behind is the machine's to clean. Such a pod step says nothing about the student's files. So, from the
notebooks' own records:

- the pod step is **not graded for anyone** in this run: every student's pod record becomes skipped with the
  words "not graded: the grading machine's error" (a skipped step is out of everyone's total and no test,
  runbook_lib/grading/score.py), and a student's verdict no longer counts it;
- the run has one error a cause (``ClassGrade.errors``): what the machine lacks, its fix (the packages to
  install, in both languages) and the students whose pod met it. The terminal prints it once; grades.json,
  every results.json and the class page carry it; `runbook grade` exits 3.

A student's check run past the grader's own limit (grade.TIMEOUT, grade.cell_timeout), or with --notebooks a
notebook's cell past it, is the run's error in the same way: one entry naming the students it stopped, with its fix
(fewer --jobs, then what the run waits for). A notebook that could not run at all (its kernel missing or dead) is
one entry too (grade.machine.notebook_failed): the notebook is evidence, the grade is the verdicts.
"""

from __future__ import annotations

from runbook_lib.findings.catalog import say
from runbook_lib.findings.problem import Problem
from runbook_lib.steps.base import SKIPPED

POD = "pod"
# the pod step's findings that are the grading machine's (smoke/sandbox.py), never the student's files'
MACHINE_CODES = frozenset({"pod.cannot_run", "pod.timeout", "pod.left_behind"})
# what a missing program is installed with (Debian / Ubuntu)
PACKAGES = {"busybox-static": "busybox-static", "containerd": "containerd", "ctr": "containerd", "runc": "runc",
            "unshare": "util-linux"}


def _machine_problems(rec: dict) -> list[dict]:
    """The pod record's findings when every error among them is the machine's ([] otherwise)."""
    errors = [p for p in rec.get("problems") or [] if p.get("severity", "error") == "error"]
    if rec.get("id") != POD or rec.get("status") != "failed" or not errors:
        return []
    return errors if all(p.get("code") in MACHINE_CODES for p in errors) else []


def _missing(problem: dict) -> list[str]:
    values = problem.get("values") or {}
    return [m.strip() for m in str(values.get("missing") or "").split(",") if m.strip()]


def _error(code: str, students: list[str], **values) -> dict:
    p = Problem.of(code, students=", ".join(students), **values)
    return {"code": code, "what": p.what.as_dict(), "fix": p.fix.as_dict() if p.fix else None,
            "students": students}


def pod_errors(students, smoke: str | None) -> list[dict]:
    """The run's errors of the grading machine's pod (at most one a kind), the pod step ungraded for everyone."""
    if smoke != "sandbox":
        return []
    missing: dict[str, None] = {}
    left: dict[str, None] = {}
    cannot, timed_out, behind, seconds = [], [], [], set()
    for s in students:
        for rec in s.steps:
            found = _machine_problems(rec)
            codes = {p.get("code") for p in found}
            for p in found:
                values = p.get("values") or {}
                if p.get("code") == "pod.cannot_run":
                    missing.update(dict.fromkeys(_missing(p)))
                    cannot.append(s.label)
                elif p.get("code") == "pod.timeout":
                    timed_out.append(s.label)
                    seconds.add(str(values.get("seconds") or "-"))
                elif codes == {"pod.left_behind"}:  # left behind after a pod that was otherwise judged
                    behind.append(s.label)
                    left.update(dict.fromkeys(str(values.get("left") or "-").split(", ")))
    errors = []
    if cannot:
        lacks = list(missing) or ["-"]
        packages = " ".join(dict.fromkeys(PACKAGES[m] for m in lacks if m in PACKAGES)) or "containerd runc busybox-static util-linux"
        code = "grade.machine.pod_cannot_run.not_root" if lacks == ["root"] else "grade.machine.pod_cannot_run"
        errors.append(_error(code, sorted(dict.fromkeys(cannot)), missing=", ".join(lacks), packages=packages))
    if timed_out:
        errors.append(_error("grade.machine.pod_timeout", sorted(dict.fromkeys(timed_out)),
                             seconds=", ".join(sorted(seconds))))
    if behind:
        errors.append(_error("grade.machine.pod_left_behind", sorted(dict.fromkeys(behind)), left=", ".join(left)))
    if errors:
        for s in students:
            _not_graded(s)
    return errors


def _not_graded(student) -> None:
    """The student's pod record: skipped, "not graded" (the run's error says why); the verdict without it."""
    was_failed = False
    for rec in student.steps:
        if rec.get("id") == POD and rec.get("status") != SKIPPED:
            was_failed = was_failed or rec.get("status") == "failed"
            rec["status"], rec["not_graded"] = SKIPPED, True
            rec["message"] = say("grade.machine.pod_not_graded").as_dict()
            rec["problems"] = []
    if was_failed and not student.ok:  # the pod was what failed the run: without it, the steps' own verdicts
        student.ok = student.error is None and not student.failed_steps()


def timeout_errors(students) -> list[dict]:
    """The grader's own time limit, met by some students' runs or their notebooks' cells: one error naming them."""
    stopped = [s for s in students if "timeout" in ((s.error or {}).get("kind"),
                                                      (s.notebook_error or {}).get("kind"))]
    if not stopped:
        return []
    return [_error("grade.machine.cell_timeout", [s.label for s in stopped])]


def notebook_errors(students) -> list[dict]:
    """Notebooks (--notebooks) that did not run for another reason than the time limit (a kernel not installed,
    one that died): one error naming the students, with the first reason."""
    failed = [s for s in students if s.notebook_error and s.notebook_error.get("kind") != "timeout"]
    if not failed:
        return []
    first = failed[0].notebook_error
    return [_error("grade.machine.notebook_failed", [s.label for s in failed],
                   reason=f"{first.get('ename')}: {str(first.get('evalue') or '').splitlines()[0][:300]}")]
