"""The `runbook` command: run (and archive) the notebook, summarize a fleet's archives, prepare a lab root.

A thin layer over papermill's Python API. Only the standard library is imported at module level: papermill,
nbformat and PyYAML are imported by the sub-command that needs them, so `runbook --help` stays fast.
Exit codes: 0 the run (or every host) passed, 1 a run failed, 2 the request was refused before running, 130
interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from runbook_lib.cli.args import collect_parameters, refuse_same_root_twice
from runbook_lib.cli.refused import EXIT_FAILED, EXIT_OK, EXIT_REFUSED, Refused  # noqa: F401 - re-exported
from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import Msg, bilingual


class _Roots(argparse.Action):
    """--root keeps its last value in args.root (one root, as before) and every value in args.roots."""

    def __call__(self, parser, namespace, values, option_string=None):
        # relative to where the command was typed (the kernel's working folder may be another), as `runbook grade`
        values = os.path.abspath(values) if values else values
        namespace.root = values
        namespace.roots = [*(getattr(namespace, "roots", None) or []), values]


class _Code(str):
    """A catalog code where argparse takes a text: its words are read only when the help is shown, so building the
    parser reads no YAML (`runbook --help` stays fast; tests/fleet/test_cli_startup.py)."""


def _help(code: str) -> str:
    return _Code(code)


def _said(text):
    return bilingual(say(text)) if isinstance(text, _Code) else text


class _Help(argparse.HelpFormatter):
    """argparse's help, with a catalog code's words where the parser holds the code."""

    def _get_help_string(self, action):
        return _said(action.help)

    def _format_text(self, text):
        return super()._format_text(_said(text))


class _Parser(argparse.ArgumentParser):
    """The parser and its sub-commands' (add_subparsers makes them of this class): help from the catalog."""

    def __init__(self, *args, formatter_class=_Help, **kwargs):
        super().__init__(*args, formatter_class=formatter_class, **kwargs)

    def error(self, message):
        """argparse's hook for a command line it cannot take: the usage line, then what is wrong and the fix in
        both languages (cli/usage.py), exit 2 as argparse does (a refusal: nothing ran)."""
        from runbook_lib.cli.usage import usage_error

        self.refuse(usage_error(message, self.prog))

    def refuse(self, said: Msg):
        self.print_usage(sys.stderr)
        self.exit(EXIT_REFUSED, f"{self.prog}: {said.ko}\n{self.prog}: {said.en}\n")


def build_parser() -> argparse.ArgumentParser:
    from runbook_lib import __version__

    p = _Parser(
        prog="runbook",
        description=_help("cli.help.description"))
    p.add_argument("--version", action="version", version=f"runbook {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="{run,grade,check,summary,lab-init}")

    run = sub.add_parser("run", help=_help("cli.help.run"))
    run.add_argument("--root", required=True, action=_Roots,
                     help=_help("cli.help.root"))
    run.add_argument("--jobs", type=int, default=1, metavar="N",
                     help=_help("cli.help.jobs"))
    run.add_argument("--mode", choices=["apply", "check", "remove"], default=None,
                     help=_help("cli.help.mode"))
    run.add_argument("--smoke", choices=["off", "sandbox", "node"], default=None,
                     help=_help("cli.help.smoke"))
    add_parameters(run)
    run.add_argument("--archive", default="runbook-archive", metavar="DIR",
                     help=_help("cli.help.archive"))
    run.add_argument("--label", default=None,
                     help=_help("cli.help.label"))
    add_limits(run)
    run.add_argument("--notebook", default=None, help=argparse.SUPPRESS)  # tests and development only

    grade = sub.add_parser("grade", help=_help("cli.help.grade"),
                           description=_help("cli.help.grade_description"))
    grade.add_argument("roots", nargs="+", metavar="ROOT", help=_help("cli.help.student_root"))
    grade.add_argument("--out", required=True, metavar="DIR", help=_help("cli.help.out"))
    grade.add_argument("--jobs", type=int, default=1, metavar="N", help=_help("cli.help.grade_jobs"))
    add_parameters(grade)
    grade.add_argument("--label", dest="labels", action="append", default=None, metavar="NAME",
                       help=_help("cli.help.grade_labels"))
    grade.add_argument("--points", default=None, metavar="COURSE.yaml", help=_help("cli.help.grade_points"))
    add_limits(grade)
    grade.add_argument("--notebooks", action="store_true", help=_help("cli.help.grade_notebooks"))
    grade.add_argument("--notebook", default=None, help=argparse.SUPPRESS)  # tests and development only

    check = sub.add_parser("check", help=_help("cli.help.check"),
                           description=_help("cli.help.check_description"))
    check.add_argument("root", metavar="ROOT", help=_help("cli.help.student_root"))
    check.add_argument("--step", required=True, metavar="N", help=_help("cli.help.step"))
    add_parameters(check, file=False)

    summ = sub.add_parser("summary", help=_help("cli.help.summary"))
    summ.add_argument("archive", metavar="DIR")
    summ.add_argument("--format", choices=["text", "markdown", "html"], default="text")
    summ.add_argument("--students", action="store_true",
                      help=_help("cli.help.students"))

    lab = sub.add_parser("lab-init", help=_help("cli.help.lab_init"))
    lab.add_argument("root", metavar="ROOT", nargs="?")
    lab.add_argument("--force", action="store_true",
                     help=_help("cli.help.force"))
    lab.add_argument("--mistake", metavar="KIND[,KIND...]",
                     help=_help("cli.help.mistake"))
    lab.add_argument("--finished", action="store_true",
                     help=_help("cli.help.finished"))
    lab.add_argument("--list", action="store_true", help=_help("cli.help.list"))
    p.commands = {"run": run, "grade": grade, "check": check, "summary": summ, "lab-init": lab}
    return p


def add_parameters(parser: argparse.ArgumentParser, *, file: bool = True) -> None:
    """-f PARAMS.yaml and -p NAME VALUE, as papermill takes them (cli/args.collect_parameters reads them)."""
    if file:
        parser.add_argument("-f", "--parameters-file", dest="params_file", metavar="PARAMS.yaml",
                            help=_help("cli.help.params_file"))
    parser.add_argument("-p", "--parameter", dest="params", nargs=2, action="append", default=[],
                        metavar=("NAME", "VALUE"), help=_help("cli.help.param"))


def add_limits(parser: argparse.ArgumentParser) -> None:
    """--timeout and --memory: the notebook's time_limit and memory_limit for every root (runbook_lib/engine/limits.py)."""
    parser.add_argument("--timeout", type=int, default=None, metavar="SECONDS",
                        help=_help("cli.help.timeout"))
    parser.add_argument("--memory", type=int, default=None, metavar="MIB",
                        help=_help("cli.help.memory"))


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # said by the command's own parser: its usage line and its --help, not the top's
        command = parser.commands[args.command]
        command.refuse(say("cli.usage.unrecognized", prog=command.prog, args=" ".join(unknown)))
    from runbook_lib.cli.check import cmd_check
    from runbook_lib.cli.grade import cmd_grade

    handler = {"run": cmd_run, "grade": cmd_grade, "check": cmd_check, "summary": cmd_summary,
               "lab-init": cmd_lab_init}[args.command]
    try:
        return handler(args)
    except Refused as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_REFUSED
    except KeyboardInterrupt:  # Ctrl-C: a sentence, not a traceback from wherever the wait was
        print(say(INTERRUPTED[args.command]), file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `runbook lab-init --list | head`: the reader left early; no traceback for that
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's own flush at exit would raise again
        return EXIT_FAILED


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C
# what each command leaves when Ctrl-C stops it
INTERRUPTED = {"run": "cli.main.interrupted_run", "grade": "cli.main.interrupted_grade",
               "check": "cli.main.interrupted_reads_only", "summary": "cli.main.interrupted_reads_only",
               "lab-init": "cli.main.interrupted_lab_init"}


def cmd_run(args) -> int:
    from runbook_lib.evidence.archive import packaged_notebook

    notebook = Path(args.notebook) if args.notebook else packaged_notebook()
    roots = getattr(args, "roots", None) or [args.root]
    os.environ["RUNBOOK_TERMINAL_SUMMARY"] = "0"  # this command prints the run itself (notebook/views.py)
    import papermill as pm

    from runbook_lib import __version__
    from runbook_lib.evidence.parallel import Job, run_one

    if not notebook.is_file():
        raise Refused(str(say("cli.main.notebook_not_found", notebook=notebook)))
    from runbook_lib.evidence.labels import typed_problem
    if args.label is not None and (why := typed_problem(args.label)):
        raise Refused(why)
    declared = pm.inspect_notebook(str(notebook))
    if len(roots) > 1:
        return cmd_run_many(args, notebook, declared, roots)
    params = collect_parameters(args, declared)
    from runbook_lib.evidence.labels import for_roots, problem

    label = for_roots([args.root], args.label)[0]  # one rule for every command: runbook_lib/evidence/labels.py
    if problem(label):
        raise Refused(problem(label))
    make_archive_folder(Path(args.archive))
    result = run_one(notebook, Job(args.root, label, params), Path(args.archive), __version__)
    print(render_run(result.manifest, result.run_dir))
    print(f"{bilingual(say('label.archive'))}: {os.path.abspath(result.run_dir)}")
    return EXIT_OK if result.ok else EXIT_FAILED


def make_archive_folder(archive: Path) -> None:
    """The archive folder, made before any run starts: a file in its way or a folder that cannot be made is a
    refusal that says so, not a traceback after the kernel has started."""
    if archive.exists() and not archive.is_dir():
        raise Refused(str(say("cli.main.archive_file_not_folder", archive=archive)))
    broken = next((p for p in [archive, *archive.parents] if p.is_symlink() and not p.exists()), None)
    if broken is not None:  # mkdir would say "File exists" of a folder that is not there
        raise Refused(str(say("cli.main.link_archive_folder_s", broken=broken, broken2=os.readlink(broken))))
    try:
        archive.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise Refused(str(say("cli.main.cannot_create_archive_folder", strerror=exc.strerror, archive=archive))) from None


def cmd_run_many(args, notebook: Path, declared: dict, roots: list[str]) -> int:
    """Several roots, --jobs at a time (runbook_lib/evidence/parallel.py); exit 0 only when every run passed."""
    from runbook_lib import __version__
    from runbook_lib.evidence.labels import problem
    from runbook_lib.evidence.parallel import Job, labels_for, run_many

    if args.jobs < 1:
        raise Refused(str(say("cli.main.jobs_must_least", jobs=args.jobs)))
    refuse_same_root_twice(roots)
    labels = labels_for(roots, args.label)  # distinct by construction (runbook_lib/evidence/labels.py)
    for label in labels:
        if problem(label):
            raise Refused(problem(label))
    jobs = [Job(root, label, collect_parameters(args, declared, root)) for root, label in zip(roots, labels)]
    make_archive_folder(Path(args.archive))
    all_ok = True
    for job, result in run_many(notebook, jobs, Path(args.archive), __version__, args.jobs):
        print(f"== {job.label} ({job.root})")
        if isinstance(result, Exception):
            all_ok = False
            print(f"  {bilingual(say('label.error'))}: {result}")  # the run crashed before its notebook: what it said
            continue
        all_ok = all_ok and result.ok
        print(render_run(result.manifest, result.run_dir))
        print(f"{bilingual(say('label.archive'))}: {os.path.abspath(result.run_dir)}")
    return EXIT_OK if all_ok else EXIT_FAILED


def render_run(manifest: dict, run_dir: Path | None = None) -> str:
    """The steps, then the result; a failed run ends with its own reason and where its notebook is
    (runbook_lib/evidence/stop_reason.py), never the name of the exception papermill raised."""
    from runbook_lib.findings.text import once, under_step, warnings
    from runbook_lib.steps.status import verdict

    lines, said = [], set()
    decided = manifest.get("profile") or {}
    if decided.get("reason"):  # the world the run decided it is in, first (runbook_lib/engine/profile.py)
        lines.append(f"{bilingual(say('label.profile'))}: {bilingual(Msg.of_dict(decided['reason']))}")
    if manifest.get("layout"):  # a node's layout and why, under its own label
        lines.append(f"{bilingual(say('label.layout'))}: {bilingual(Msg.of_dict(manifest['layout']))}")
    for rec in manifest["steps"]:
        title = (rec.get("title") or {}).get("en", "")
        number = "" if str(rec.get("step")) == str(rec.get("id")) else f"[{rec.get('step')}]"  # restart, pod: no number
        lines.append(f"  {number:<5} {rec.get('id', ''):<13} {rec.get('status', ''):<10} {title}")
        lines += once(under_step(rec), said)  # where, what, the fix: what an operator needs, each said once
    mode = manifest.get("mode") or (manifest.get("parameters") or {}).get("mode") or "apply"  # stopped early: as asked
    result = f"{bilingual(say('label.result'))}: {bilingual(verdict(manifest['ok']))} ({manifest['label']}, mode={mode})"
    warned = len({(p.get("code"), str(p.get("what"))) for rec in manifest["steps"] for p in warnings(rec)})
    lines.append(result + (f", {bilingual(say('label.warnings_under', n=warned))}" if warned else ""))
    if not manifest["ok"]:
        lines += _why(manifest, run_dir, "\n".join(lines))
    return "\n".join(lines)


def _why(manifest: dict, run_dir: Path | None, shown: str = "") -> list[str]:
    import json

    from runbook_lib.evidence import stop_reason
    from runbook_lib.evidence.archive import NOTEBOOK_NAME

    executed = Path(run_dir or ".") / NOTEBOOK_NAME
    if run_dir is not None and executed.is_file():
        return stop_reason.lines(executed, json.loads(executed.read_text(encoding="utf-8")), shown)
    err = manifest.get("error") or {}  # no executed notebook (the kernel never started): what stopped it
    return [f"  {line}" for line in str(err.get("evalue") or "").split("\n") if line.strip()]


def cmd_summary(args) -> int:
    from runbook_lib.evidence.summary import render, summarize

    archive = Path(args.archive)
    if not archive.is_dir():
        raise Refused(str(say("cli.main.archive_folder_not_found", archive=archive)))
    table = summarize(archive, students=True if args.students else None)
    if not table.rows:  # `runbook grade` without --notebooks writes no manifests: its grades.json, then
        from runbook_lib.grading.summary import grades_table
        try:
            table = grades_table(archive) or table
        except ValueError as exc:
            raise Refused(str(exc)) from None
    if not table.rows:
        raise Refused(str(say("cli.main.no_runs_manifest_json", archive=archive)))
    print(render(table, args.format))
    return EXIT_OK if table.all_ok else EXIT_FAILED


def cmd_lab_init(args) -> int:
    from runbook_lib.findings.errors import RunbookError
    from runbook_lib.lab.init_root import add_mistakes, finished_lab, lab_init
    from runbook_lib.lab.mistakes import listing

    if args.list:
        print(listing())
        return EXIT_OK
    if not args.root:
        raise Refused(str(say("cli.main.give_root_runbook_lab")))
    try:
        if args.mistake:
            print(add_mistakes(args.root, args.mistake))
        elif args.finished:
            print(finished_lab(args.root))
        else:
            print(lab_init(args.root, force=args.force))
    except (ValueError, RunbookError) as exc:
        raise Refused(str(exc)) from None
    return EXIT_OK
