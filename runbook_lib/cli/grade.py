"""`runbook grade --out DIR ROOT...`: the engine in check mode on every student's root, the grades in DIR
(`--notebooks`: each student's notebook executed by papermill too, as evidence).

Exit codes: 0 every student passed, 1 at least one did not, 2 the request was refused before anything ran
(argparse's own usage errors are 2 as well), 3 the grading machine failed the run (runbook_lib/grading/machine.py:
the error printed once, with its fix; no student charged for it). Only the standard library at module level
(`runbook --help`).
"""

from __future__ import annotations

import os
from pathlib import Path

from runbook_lib.findings.catalog import say


def grade_parameters(args, declared: dict | None) -> dict:
    """-f then -p, as `runbook run` reads them; the root and the mode are the grader's, not the caller's.
    ``declared``: the parameters there are (None: run.ipynb's, engine/params.py's table)."""
    from runbook_lib.cli.args import collect_parameters
    from runbook_lib.cli.refused import Refused

    given = dict(args.params)
    if "root" in given:
        raise Refused(str(say("cli.grade.give_roots_root_arguments")))
    if given.get("mode", "check") != "check":
        raise Refused(str(say("cli.grade.grading_runs_check_mode")))
    args.root, args.mode = "", "check"
    params = collect_parameters(args, declared, root="")
    params.pop("root")
    return params


def cmd_grade(args) -> int:
    from runbook_lib.cli.args import refuse_same_root_twice
    from runbook_lib.evidence.archive import packaged_notebook
    from runbook_lib.cli.refused import EXIT_FAILED, EXIT_OK, Refused

    if args.jobs < 1:
        raise Refused(str(say("cli.grade.jobs_must_least", jobs=args.jobs)))
    files = [r for r in args.roots if os.path.exists(r) and not os.path.isdir(r)]
    if files:  # a README beside the students' folders, picked up by /srv/class/*
        raise Refused(str(say("cli.grade.student_root_must_folder", files=', '.join(files))))
    missing = [r for r in args.roots if not os.path.isdir(r)]
    if missing:
        raise Refused(str(say("cli.grade.no_such_student_root", missing=', '.join(missing))))
    refuse_same_root_twice(args.roots)
    if args.labels is not None and len(args.labels) != len(args.roots):
        raise Refused(str(say("cli.grade.give_one_label_per", count=len(args.roots), count2=len(args.labels))))
    from runbook_lib.evidence.labels import typed_problem
    for label in args.labels or []:
        if why := typed_problem(label):
            raise Refused(why)
    out = Path(args.out)
    from runbook_lib.grading.grade import refuse_out_among_roots
    try:
        refuse_out_among_roots(out, args.roots)  # a class glob that picked an earlier grading's folder: said so
    except ValueError as exc:
        raise Refused(str(exc)) from None
    if any(os.path.realpath(out).startswith(os.path.realpath(r) + os.sep) or os.path.realpath(out) ==
           os.path.realpath(r) for r in args.roots):
        raise Refused(str(say("cli.grade.out_inside_student_s", out=out)))
    if out.exists() and not out.is_dir():  # it would fail in mkdir, after every student had been graded
        raise Refused(str(say("cli.grade.out_file_not_folder", out=out)))
    points = None
    if args.points:
        from runbook_lib.grading.score import load_points
        from runbook_lib.findings.errors import RunbookError
        try:
            points = load_points(args.points)
        except RunbookError as exc:  # nested or aliased beyond the bounds: its words say which and the limit
            raise Refused(exc.render()) from None
        except ValueError as exc:
            raise Refused(str(exc)) from None
    notebook = Path(args.notebook) if args.notebook else packaged_notebook()
    if args.notebooks and not notebook.is_file():
        raise Refused(str(say("cli.grade.notebook_not_found", notebook=notebook)))
    from runbook_lib.grading.grade import grade_class

    params = grade_parameters(args, None)
    try:
        result = grade_class(args.roots, out, params, labels=args.labels, jobs=args.jobs, notebooks=args.notebooks,
                             notebook=notebook, points=points)  # --timeout, --memory: the run's, in params
    except ValueError as exc:
        raise Refused(str(exc)) from None
    print(render(result))
    if result.errors:
        return EXIT_MACHINE
    return EXIT_OK if result.all_ok else EXIT_FAILED


EXIT_MACHINE = 3  # the grading machine's error (the run's, said once with its fix), whatever the students did


def render(result) -> str:
    """Every student's score on the assignment's fixed total and verdict under bilingual headers, then the class's
    count, the run's errors (the grading machine's, once each with its fix) and the files written."""
    from runbook_lib.grading.class_view import counts_line, score_text
    from runbook_lib.grading.model import CSV_NAME, GRADES_NAME, INDEX_NAME, JUNIT_NAME
    from runbook_lib.findings.messages import bilingual, display_width
    from runbook_lib.steps.status import verdict

    heads = [bilingual(say(code)) for code in ("label.student", "label.score", "label.result")]
    scores = [score_text(s) for s in result.students]
    width = max([display_width(s.label) for s in result.students] + [display_width(heads[0])])
    wide = max([len(t) for t in scores] + [display_width(heads[1])])

    def row(label: str, score: str, state: str) -> str:
        return (f"  {label}{' ' * (width - display_width(label))}  {score}{' ' * (wide - display_width(score))}"
                f"  {state}")

    lines = [row(*heads)]
    for s, score in zip(result.students, scores):
        failed = [f"{r.get('step')} {r.get('id')}" for r in s.failed_steps()]
        state = bilingual(verdict(s.ok)) + ("" if s.ok else ": " + (", ".join(failed) or bilingual(say("gradescope.unfinished"))))
        lines.append(row(s.label, score, state))
        if s.error and not failed:  # no verdicts (a limit, a dead worker, an error): why, in its words
            lines += [f"      {text}" for text in str(s.error.get("evalue") or "").splitlines()[:5]]
    line = counts_line(result)
    lines += [line.ko, line.en]
    for e in result.errors:  # the grading machine's: once for the run, with its fix, never under a student
        fix = e.get("fix") or {}
        lines.append(f"✗ {bilingual(say('grade.machine.heading'))}:")
        lines += [f"  {e['what']['ko']}", f"  {e['what']['en']}"]
        if fix:
            lines += [f"  {bilingual(say('label.fix'))}: {fix['ko']}", f"  {fix['en']}"]
    for name in (INDEX_NAME, GRADES_NAME, CSV_NAME, JUNIT_NAME):
        lines.append(f"  {result.out / name}")
    notebooks = ", run.ipynb" if any(s.notebook for s in result.students) else ""
    lines.append(f"  {result.out}/<label>/feedback.html, results.json{notebooks}")
    return "\n".join(lines)
