"""Grading a class: the runbook in check mode on every student's root, in parallel, and what comes out of it.

`runbook grade` and notebooks/class.ipynb both call `grade_class`. Nothing is written under a student's root
(check mode plans and reads only); everything goes to the output folder:

    DIR/<label>/run.ipynb      the executed notebook (the evidence), with run.html and manifest.json
    DIR/<label>/feedback.html  the page written for the student (runbook_lib/grading/feedback.py)
    DIR/<label>/results.json   the student's grade in Gradescope's results.json format
    DIR/grades.json            every student's results.json, for a course platform (docs/GRADING.md)
    DIR/junit.xml              a testsuite per student, a testcase per step, for CI (runbook_lib/grading/junit.py)
    DIR/index.html             the class as a picture (runbook_lib/grading/class_view.py)

A student's verdict is never recomputed here: it is what the notebook's own records say (archive.records).
"""

from __future__ import annotations
from runbook_lib.findings.catalog import say

import json
import os
from pathlib import Path

from runbook_lib.evidence import labels as _labels
from runbook_lib.evidence.archive import NOTEBOOK_NAME, packaged_notebook, records
from runbook_lib.grading import class_view, feedback, junit, machine
from runbook_lib.grading.gradescope import class_grades, student_results
from runbook_lib.fs.safe_write import write_file  # atomic and durable: a grade written is a grade kept
from runbook_lib.grading.model import FEEDBACK_NAME, GRADES_NAME, INDEX_NAME, JUNIT_NAME, RESULTS_NAME, ClassGrade, Student

def expand_roots(roots) -> list[str]:
    """The class notebook's `roots`: a list, or one glob pattern (`/srv/class/*`), or one folder's path."""
    import glob

    if isinstance(roots, str):
        if not roots.strip():
            return []  # the notebook's default: no class given (never the working folder)
        found = sorted(p for p in glob.glob(os.path.expanduser(roots)) if os.path.isdir(p))
        return found  # one folder's path is a pattern matching itself; a file or a typo matches no folder
    return [str(r) for r in roots]


def plan(roots: list[str], out: Path, params: dict, labels: list[str] | None = None,
         prefix: str | None = None):
    """The jobs: one per root, check mode forced, label by the one rule (runbook_lib/evidence/labels.py)."""
    from runbook_lib.evidence.parallel import Job

    roots = [os.path.abspath(r) for r in roots]
    labels = labels or _labels.assign([_labels.identity(r) for r in roots], prefix)
    if len(labels) != len(roots) or len(set(labels)) != len(labels):
        raise ValueError(str(say("grading.grade.there_must_one_distinct")))
    for label in labels:
        if _labels.problem(label):
            raise ValueError(_labels.problem(label))
    refuse_out_among_roots(Path(out), roots)
    refuse_overlap([Path(out) / label for label in labels], roots)
    return [Job(root, label, {**params, "root": root, "mode": "check"}, run_dir=Path(out) / label, kind="grade")
            for root, label in zip(roots, labels)]


def refuse_out_among_roots(out: Path, roots: list[str]) -> None:
    """`--out /srv/class/grades` graded again with `/srv/class/*`: the glob now picks the grading folder itself as
    a student. Refused with that reason, and where the grades belong."""
    mine = os.path.realpath(out)
    if any(os.path.realpath(r) == mine for r in roots):
        said = say("grading.grade.out_is_a_student_root", out=out)
        fix = say("grading.grade.out_is_a_student_root.fix", out=out)
        raise ValueError(f"{said.ko}\n{said.en}\n{fix.ko}\n{fix.en}")


def refuse_overlap(folders: list[Path], roots: list[str]) -> None:
    """A student's output folder that is a student's root, or is inside or around one (`--out /srv/class` for
    /srv/class/kim: DIR/kim/ is kim's root): the grading would write run.ipynb, feedback.html and results.json
    there, over a student's own files of those names. Refused before anything runs."""
    real_roots = [os.path.realpath(r) for r in roots]
    for folder in folders:
        mine = os.path.realpath(folder)
        for root, real in zip(roots, real_roots):
            if mine == real or mine.startswith(real.rstrip(os.sep) + os.sep) or real.startswith(mine + os.sep):
                raise ValueError(
                    str(say("grading.grade.grading_folder_overlaps_student", folder=folder, root=root)))


def grade_class(roots: list[str], out: str | os.PathLike, params: dict | None = None, *,
                labels: list[str] | None = None, prefix: str | None = None, jobs: int = 1,
                notebook: Path | None = None, version: str | None = None, timeout: float | None = None,
                early=None, points: dict | None = None) -> ClassGrade:
    """Grade every root into `out` and write every output file; returns the class's grades. Every student's
    notebook runs in a fresh kernel of its own, `jobs` at a time (runbook_lib/grading/runner.py); a cell that runs
    past `timeout` seconds ends that student's run only. `early`: the zygote `runbook grade` started before its
    imports (runner.EarlyZygote). `points`: the course file's points per step (score.load_points), else 1 a
    step."""
    from runbook_lib import __version__
    from runbook_lib.grading.runner import CELL_TIMEOUT, run_class

    out = Path(out).resolve()
    planned = plan(roots, out, dict(params or {}), labels, prefix)  # refused before anything is written
    out.mkdir(parents=True, exist_ok=True)
    nb_path = notebook or packaged_notebook()
    result = ClassGrade(out)
    for job, run in run_class(nb_path, planned, version or __version__, jobs, timeout or CELL_TIMEOUT, early):
        student = student_from(job, run)
        student.points = dict(points or {})
        result.students.append(student)
    # the grading machine's failures: the run's errors, once each; the pod then graded for no one (machine.py)
    result.errors = (machine.pod_errors(result.students, (params or {}).get("smoke"))
                     + machine.timeout_errors(result.students))
    write_outputs(result)
    return result


def student_from(job, run) -> Student:
    """What one run says about one student: the notebook's records, or why there are none."""
    folder = Path(job.run_dir)
    if isinstance(run, Exception):
        return Student(job.label, job.root, False, [], {"ename": type(run).__name__, "evalue": str(run)}, folder)
    steps, summary = [], None
    executed = folder / NOTEBOOK_NAME
    if executed.exists():
        steps, summary = records(json.loads(executed.read_text(encoding="utf-8")))
    if summary is not None:
        steps = summary.get("steps") or steps
    error = run.manifest.get("error") if summary is None else None
    if summary is None and not error:
        error = {"ename": "NoSummary", "evalue": "the notebook stopped before its summary"}
    ok = bool(summary and summary.get("ok")) and not any(s.get("status") == "failed" for s in steps)
    return Student(job.label, job.root, ok, steps, error, folder, run.manifest.get("started_at"),
                   float(run.manifest.get("duration_seconds") or 0.0))


def write_outputs(result: ClassGrade) -> None:
    for s in result.students:
        s.folder.mkdir(parents=True, exist_ok=True)
        write_file(s.folder / FEEDBACK_NAME, feedback.render(s))
        _write_json(s.folder / RESULTS_NAME, student_results(s, result.errors))
    _write_json(result.out / GRADES_NAME, class_grades(result))
    write_file(result.out / JUNIT_NAME, junit.render(result))
    write_file(result.out / INDEX_NAME, class_view.page(result))


def _write_json(path: Path, data) -> None:
    write_file(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")
