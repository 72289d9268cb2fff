"""Grading a class: the engine in check mode on every student's root, `jobs` at a time, and what comes out of it.

`runbook grade` and notebooks/class.ipynb both call `grade_class`. Nothing is written under a student's root
(check mode plans and reads only); everything goes to the output folder:

    DIR/<label>/feedback.html  the page written for the student (runbook_lib/grading/feedback.py)
    DIR/<label>/results.json   the student's grade in Gradescope's results.json format
    DIR/<label>/run.ipynb      with --notebooks only: the student's notebook executed by papermill (evidence)
    DIR/grades.json            every student's results.json, for a course platform (docs/GRADING.md)
    DIR/grades.csv             one row a student, one column a step's points, the total: for an LMS (lms.py)
    DIR/junit.xml              a testsuite per student, a testcase per step, for CI (runbook_lib/grading/junit.py)
    DIR/index.html             the class as a picture (runbook_lib/grading/class_view.py)

A student's grade is the engine's verdict on the student's root (grading/verdicts.py), the very verdict each check
cell of the notebook shows; the executed notebook, when asked for, is evidence beside it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from runbook_lib.evidence import labels as _labels
from runbook_lib.findings.catalog import say
from runbook_lib.fs.safe_write import write_files  # atomic and durable: a grade written is a grade kept
from runbook_lib.grading import class_view, feedback, junit, lms, machine
from runbook_lib.grading.gradescope import class_grades, student_results
from runbook_lib.grading.model import (CSV_NAME, FEEDBACK_NAME, GRADES_NAME, INDEX_NAME, JUNIT_NAME, NOTEBOOK_NAME,
                                       RESULTS_NAME, ClassGrade, Student)


RETIRE_MIB = 64  # a worker grown by more than this (a root that took memory to judge) is replaced after it


def expand_roots(roots) -> list[str]:
    """The class notebook's `roots`: a list, or one glob pattern (`/srv/class/*`), or one folder's path."""
    import glob

    if isinstance(roots, str):
        if not roots.strip():
            return []  # the notebook's default: no class given (never the working folder)
        found = sorted(p for p in glob.glob(os.path.expanduser(roots)) if os.path.isdir(p))
        return found  # one folder's path is a pattern matching itself; a file or a typo matches no folder
    return [str(r) for r in roots]


def plan(roots: list[str], out: Path, labels: list[str] | None = None,
         prefix: str | None = None) -> list[tuple[str, str]]:
    """(root, label) for every student, label by the one rule (runbook_lib/evidence/labels.py); refused (a
    ValueError) before anything runs when two labels are one or an output folder meets a student's root."""
    roots = [os.path.abspath(r) for r in roots]
    labels = labels or _labels.assign([_labels.identity(r) for r in roots], prefix)
    if len(labels) != len(roots) or len(set(labels)) != len(labels):
        raise ValueError(str(say("grading.grade.there_must_one_distinct")))
    for label in labels:
        if _labels.problem(label):
            raise ValueError(_labels.problem(label))
    refuse_out_among_roots(Path(out), roots)
    refuse_overlap([Path(out) / label for label in labels], roots)
    return list(zip(roots, labels))


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
    /srv/class/kim: DIR/kim/ is kim's root): the grading would write feedback.html, results.json and run.ipynb
    there, over a student's own files of those names. Refused before anything runs."""
    real_roots = [os.path.realpath(r) for r in roots]
    for folder in folders:
        mine = os.path.realpath(folder)
        for root, real in zip(roots, real_roots):
            if mine == real or mine.startswith(real.rstrip(os.sep) + os.sep) or real.startswith(mine + os.sep):
                raise ValueError(
                    str(say("grading.grade.grading_folder_overlaps_student", folder=folder, root=root)))


def refuse_parameters(params: dict, root: str):
    """The parameters as every student's check run reads them (engine/params.py's Params); one no check run
    would accept (-p runtime_name "a b") refused once with its finding, before anything runs, rather than said as
    every student's error."""
    from runbook_lib.engine.params import validate
    from runbook_lib.findings.errors import ParameterError
    from runbook_lib.findings.problem import Problem
    from runbook_lib.findings.text import lines

    try:
        return validate(**{**params, "root": root, "mode": "check"})
    except ParameterError as exc:
        raise ValueError("\n".join(lines(Problem.from_error(exc)))) from None


def warm(smoke: str | None = None) -> None:
    """What every student's check run uses, imported and read once here, before the workers fork: each worker
    starts with it (nothing is imported again in a worker). ``smoke``: a pod for every student, so its CRI
    client too."""
    import runbook_lib.engine.run  # noqa: F401
    import runbook_lib.steps  # noqa: F401 - every step, and the containerd modules each calls
    from runbook_lib.findings.catalog import catalog

    catalog()  # every sentence a verdict says
    from runbook_lib.cdi.validate import schema_validator

    schema_validator()  # the CDI schema's validator (jsonschema-rs), compiled once
    if smoke not in (None, "off"):
        import runbook_lib.containerd.cri  # noqa: F401 - grpc, which every pod's check talks through


def grade_class(roots: list[str], out: str | os.PathLike, params: dict | None = None, *,
                labels: list[str] | None = None, prefix: str | None = None, jobs: int = 1,
                notebooks: bool = False, notebook: Path | None = None, timeout: float | None = None,
                points: dict | None = None) -> ClassGrade:
    """Grade every root into `out` and write every output file; returns the class's grades. Each student is
    graded by the engine in check mode in a worker, `jobs` at a time (grading/pool.py); a run that raises or
    passes its limits (params' time_limit and memory_limit) is that student's error only; one the grader had to
    stop after `timeout` seconds (default: the time limit and a margin) is the machine's. `notebooks`: each student's notebook
    (`notebook`, else the packaged one) also executed by papermill into DIR/<label>/run.ipynb. `points`: the
    course file's points per step (score.load_points), else 1 a lab step."""
    from runbook_lib.grading import pool, verdicts

    params = dict(params or {})
    params.pop("mode", None)
    out = Path(out).resolve()
    students = plan(roots, out, labels, prefix)  # refused before anything is written
    checked = refuse_parameters(params, students[0][0] if students else str(out))
    out.mkdir(parents=True, exist_ok=True)
    from runbook_lib.engine.limits import GRACE

    # the run's own limits (time_limit, memory_limit: --timeout, --memory) stop a student's check with its words,
    # as in the notebook; the grader's limit, past them, is the machine's (a notebook's cell, a stuck worker)
    timeout = float(timeout or checked.time_limit + GRACE + 30)
    limit, nb_path = timeout, None
    warm(checked.smoke)
    if notebooks:
        from runbook_lib.evidence.archive import packaged_notebook

        import papermill  # noqa: F401 - imported once, before the workers fork

        nb_path = str(notebook or packaged_notebook())
        limit = timeout * (_cells(nb_path) + 2)  # the notebook's cells each have `timeout`, papermill's limit
    tasks = [{"params": {**params, "root": root}, "notebook": nb_path, "timeout": timeout,
              "out_nb": str(out / label / NOTEBOOK_NAME)} for root, label in students]
    result = ClassGrade(out, [Student(label, root, False, [], folder=out / label, points=dict(points or {}))
                              for root, label in students])
    from runbook_lib.engine.limits import rss_mib

    verdicts.FORKED_AT_MIB = rss_mib()  # the workers inherit it: a student's memory counted as a kernel's
    for index, kind, value, seconds in pool.run(verdicts.student, tasks, jobs, limit, retire_mib=RETIRE_MIB):
        _take(result.students[index], kind, value, seconds, limit)
    # the grading machine's failures: the run's errors, once each; the pod then graded for no one (machine.py)
    result.errors = (machine.pod_errors(result.students, params.get("smoke"))
                     + machine.timeout_errors(result.students) + machine.notebook_errors(result.students))
    write_outputs(result)
    return result


def _cells(notebook: str) -> int:
    with open(notebook, encoding="utf-8") as f:
        return len(json.load(f).get("cells") or [])


def _take(s: Student, kind: str, value, seconds: float, limit: float) -> None:
    """What one worker said about one student: the verdicts, or why there are none."""
    s.duration = seconds
    if kind == "ok":
        s.steps, s.started_at = value["steps"], value["started_at"]
        s.ok = bool(value["ok"]) and not s.failed_steps()
        s.notebook_error = value.get("notebook_error")
    if kind == "timeout":
        s.error = {"kind": "timeout", "ename": "TimeoutError",
                   "evalue": _text("grade.cell_timeout", seconds=f"{limit:g}", root=s.root)}
    elif kind == "kernel":
        s.error = {"kind": "kernel", "ename": "WorkerDied",
                   "evalue": _text("grade.kernel_died", status=value.get("status"), root=s.root)}
    elif kind == "error":  # the engine raised: its words (a RunbookError's finding, rendered whole)
        s.error = {"kind": "error", "ename": value["ename"], "evalue": value["evalue"]}
    s.notebook = (s.folder / NOTEBOOK_NAME).exists()


def _text(code: str, **values) -> str:
    from runbook_lib.findings.problem import Problem
    from runbook_lib.findings.text import lines

    return "\n".join(lines(Problem.of(code, **values)))


def write_outputs(result: ClassGrade) -> None:
    """Every file of the grading folder, each replaced whole (a reader sees the old one or the new one), all
    flushed to disk once at the end (fs/safe_write.py write_files). grades.json holds each student's results.json
    as written, indented one level further: each is encoded once."""
    files: dict[Path, str] = {}
    own = []
    for s in result.students:
        s.folder.mkdir(parents=True, exist_ok=True)
        files[s.folder / FEEDBACK_NAME] = feedback.render(s)
        own.append(_json(student_results(s, result.errors)))
        files[s.folder / RESULTS_NAME] = own[-1] + "\n"
    files[result.out / GRADES_NAME] = _grades_text(class_grades(result, students=[]), own)
    files[result.out / CSV_NAME] = lms.render(result)
    files[result.out / JUNIT_NAME] = junit.render(result)
    files[result.out / INDEX_NAME] = class_view.page(result)
    write_files(files)


def _json(data) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2)


def _grades_text(head: dict, students: list[str]) -> str:
    """grades.json as json.dumps(..., indent=2) writes it, with the students' texts already encoded."""
    text = _json(head)
    if not students:
        return text + "\n"
    inner = ",\n".join("    " + t.replace("\n", "\n    ") for t in students)
    cut = text.rindex('"students": []')
    return text[:cut] + '"students": [\n' + inner + "\n  ]" + text[cut + len('"students": []'):] + "\n"
