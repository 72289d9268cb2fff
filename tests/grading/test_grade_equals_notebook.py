"""The grade is what the notebook shows: for every mistake the course knows (runbook_lib/lab/mistakes.py, made by
`runbook lab-init --mistake KIND`) and for a finished lab, `runbook grade --notebooks`'s code (grade_class) grades
the root with the engine and executes the student's notebook with stock papermill (papermill.execute_notebook, the
notebook's own kernel) into DIR/<label>/run.ipynb; the step records that notebook's check cells displayed
(evidence/archive.py `records`, the summary's list) equal the grade's, step by step: each step's status and its
findings' codes, in order.

One class of every case, graded once as `runbook grade --notebooks --jobs 2` grades a class (the product's own
pool, two notebooks side by side); then one test a case, so a failure names the mistake."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from runbook_lib.cli.main import main
from runbook_lib.evidence.archive import records
from runbook_lib.grading.grade import grade_class
from runbook_lib.lab.mistakes import MISTAKES

CASES = ["finished", *(m.kind for m in MISTAKES)]


def shown(steps: list[dict]) -> list[tuple]:
    return [(r.get("id"), r.get("status"), [p.get("code") for p in r.get("problems") or []]) for r in steps]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Every case's root made by `runbook lab-init` (runbook_lib.cli.main), the whole class graded by one grade_class call."""
    base = tmp_path_factory.mktemp("grade_equals_notebook")
    roots = {case: base / "class" / case for case in CASES}
    for case, root in roots.items():  # the CLI's own main, in this process: 25 interpreters' start-up spared
        with contextlib.redirect_stdout(io.StringIO()) as said:
            code = main(["lab-init", *(["--finished"] if case == "finished" else ["--mistake", case]), str(root)])
        assert code == 0, (case, said.getvalue())
    result = grade_class([str(r) for r in roots.values()], base / "grades", notebooks=True, jobs=2)
    assert result.errors == []
    by_root = {s.root: s for s in result.students}
    assert set(by_root) == {str(r) for r in roots.values()}
    return {case: by_root[str(root)] for case, root in roots.items()}


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_the_executed_notebook_shows_the_grade_step_by_step(graded, case):
    student = graded[case]
    assert student.error is None and student.notebook_error is None
    steps, summary = records(json.loads((student.folder / "run.ipynb").read_text(encoding="utf-8")))
    assert summary is not None, "the notebook stopped before its summary"
    assert shown(summary["steps"]) == shown(student.steps)
    assert shown(steps) == shown(student.steps)  # each check cell's own record, as displayed
    assert summary["ok"] is student.ok is (case == "finished")



def test_the_summary_of_the_grades_is_the_summary_of_the_executed_notebooks(graded, tmp_path):
    """`runbook summary DIR` of a grading reads DIR/grades.json (runbook_lib/grading/summary.py; a grading leaves
    no run manifests). Over every case its table is the one the summary of runs makes from manifests built from
    the executed notebooks (evidence/archive.py build_manifest, as `runbook run` keeps them): the same steps, and
    for each student the same result, statuses and failure messages (grades.json has no run times)."""
    from runbook_lib.evidence.archive import build_manifest, utc_now
    from runbook_lib.evidence.summary import summarize
    from runbook_lib.grading.summary import grades_table

    archive = tmp_path / "archive"
    for student in graded.values():
        nb = json.loads((student.folder / "run.ipynb").read_text(encoding="utf-8"))
        man = build_manifest(label=student.label, notebook=student.folder / "run.ipynb",
                             parameters={"root": student.root, "mode": "check"}, started=utc_now(),
                             ended=utc_now(), nb=nb, error=None, version="test", kind="grade")
        (archive / student.label).mkdir(parents=True)
        (archive / student.label / "manifest.json").write_text(json.dumps(man), encoding="utf-8")
    runs = summarize(archive)
    grades = grades_table(next(iter(graded.values())).folder.parent)
    assert len(grades.rows) == len(CASES) and runs.students and grades.students
    # the scored steps: the notebook's own after them (containerd, restart, pod) are skipped in a lab's check
    assert grades.columns == runs.columns[:len(grades.columns)] and len(grades.columns) == 8
    scored = [i for i, _ in grades.columns]
    assert {c for r in runs.rows for i, c in r.cells.items() if i not in scored} == {"skip"}
    table = lambda t: [(r.label, r.ok, r.mode, [r.cells[i] for i in scored], r.failures) for r in t.rows]  # noqa: E731
    assert table(grades) == table(runs)
    assert sum(not r.ok for r in grades.rows) == len(CASES) - 1 and all(r.failures for r in grades.rows if not r.ok)
