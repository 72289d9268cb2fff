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


class _Roots(argparse.Action):
    """--root keeps its last value in args.root (one root, as before) and every value in args.roots."""

    def __call__(self, parser, namespace, values, option_string=None):
        # relative to where the command was typed (the kernel's working folder may be another), as `runbook grade`
        values = os.path.abspath(values) if values else values
        namespace.root = values
        namespace.roots = [*(getattr(namespace, "roots", None) or []), values]


def build_parser() -> argparse.ArgumentParser:
    from runbook_lib import __version__

    p = argparse.ArgumentParser(
        prog="runbook",
        description="containerd 에 NVIDIA 런타임을 등록하고 증명하는 런북 / "
                    "registers the NVIDIA runtime with containerd, and proves it")
    p.add_argument("--version", action="version", version=f"runbook {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="{run,grade,check,summary,lab-init}")

    run = sub.add_parser("run", help="노트북을 실행하고 보관 / execute the notebook and archive the run")
    run.add_argument("--root", required=True, action=_Roots,
                     help="대상 root (실제 노드는 /) / target root ('/' on a real node)")
    run.add_argument("--jobs", type=int, default=1, metavar="N",
                     help="--root 를 여러 번 주면 root 마다 한 번씩, 동시에 N 개씩 실행 (기본 1) / with --root given "
                          "several times, one run per root, N at a time (default 1)")
    run.add_argument("--mode", choices=["apply", "check", "remove"], default=None,
                     help="apply: 고침, check: 검사만, remove: 런북이 더한 것만 되돌림 / apply: change, check: only verify, remove: take out what the runbook added")
    run.add_argument("--smoke", choices=["off", "sandbox", "node"], default=None,
                     help="재시작 뒤 handler 로 파드를 띄워 증명: sandbox 는 버리는 containerd (실습, GPU 불필요), node 는 노드의 "
                          "containerd (-p smoke 와 같음) / after the restart, prove it with a pod through the handler: "
                          "sandbox on a throw-away containerd (labs, no GPU), node on the node's containerd (same as -p smoke)")
    add_parameters(run)
    run.add_argument("--archive", default="runbook-archive", metavar="DIR",
                     help="보관 폴더 (기본 ./runbook-archive) / archive folder (default ./runbook-archive)")
    run.add_argument("--label", default=None,
                     help="이 실행의 이름 (기본: root 의 폴더 이름, / 이면 호스트 이름; 여러 root 면 앞에 붙임) / this "
                          "run's label (default: the root's folder name, the host name for /; a prefix with "
                          "several roots)")
    add_limits(run)
    run.add_argument("--notebook", default=None, help=argparse.SUPPRESS)  # tests and development only

    grade = sub.add_parser("grade", help="반 전체를 check 모드로 채점 / grade a class in check mode",
                           description="학생 root 마다 check 모드로 실행하고 (아무것도 쓰지 않음) DIR 에 노트북, 피드백 "
                                       "페이지, junit.xml, grades.json 을 씁니다 / runs check mode on every student "
                                       "root (writing nothing there) and writes the notebooks, feedback pages, "
                                       "junit.xml and grades.json to DIR")
    grade.add_argument("roots", nargs="+", metavar="ROOT", help="학생 root / a student's root")
    grade.add_argument("--out", required=True, metavar="DIR", help="채점 결과 폴더 / where the grades go")
    grade.add_argument("--jobs", type=int, default=1, metavar="N", help="동시에 N 명씩 (기본 1) / N at a time (default 1)")
    add_parameters(grade)
    grade.add_argument("--label", dest="labels", action="append", default=None, metavar="NAME",
                       help="root 마다 한 번씩, 같은 순서로 (기본: 폴더 이름) / once per root, in the same order "
                            "(default: the folder name, docs/GRADING.md)")
    add_limits(grade)
    grade.add_argument("--notebook", default=None, help=argparse.SUPPRESS)  # tests and development only

    check = sub.add_parser("check", help="한 단계만 확인, 아무것도 쓰지 않음 / check one step, writing nothing",
                           description="학생 root 에서 한 단계의 판정을 채점과 같은 규칙과 문장으로 보여 줍니다 (아무것도 "
                                       "쓰지 않음) / one step's verdict on a student's root, by the grading's rules "
                                       "and words (nothing is written)")
    check.add_argument("root", metavar="ROOT", help="학생 root / a student's root")
    check.add_argument("--step", required=True, metavar="N", help="단계 번호나 이름 (예: 3, options) / the step's "
                                                                   "number or name (e.g. 3, options)")
    add_parameters(check, file=False)

    summ = sub.add_parser("summary", help="root(호스트, 학생)마다 최근 실행 요약 / latest run of every root "
                                                "(host, student), side by side")
    summ.add_argument("archive", metavar="DIR")
    summ.add_argument("--format", choices=["text", "markdown", "html"], default="text")
    summ.add_argument("--students", action="store_true",
                      help="행을 학생으로 부름 (runbook grade 의 결과는 자동) / call the rows students (automatic for "
                           "what runbook grade wrote)")

    lab = sub.add_parser("lab-init", help="실습용 root 준비 / prepare a lab root with the course fixture")
    lab.add_argument("root", metavar="ROOT", nargs="?")
    lab.add_argument("--force", action="store_true",
                     help="다른 내용의 fixture 를 덮어씀 (백업 남김) / replace a differing fixture (kept as backup)")
    lab.add_argument("--mistake", metavar="KIND[,KIND...]",
                     help="실습을 끝낸 상태에 알려진 실수를 넣음 (\"무엇이 틀렸나\" 연습) / a finished lab with known "
                          "mistakes in it (\"find what is wrong\" exercises); see --list")
    lab.add_argument("--finished", action="store_true",
                     help="실수 없이 실습을 끝낸 상태 (정답) / the correctly finished lab (an answer key)")
    lab.add_argument("--list", action="store_true", help="실수 종류 목록 / list the mistake kinds")
    return p


def add_parameters(parser: argparse.ArgumentParser, *, file: bool = True) -> None:
    """-f PARAMS.yaml and -p NAME VALUE, as papermill takes them (cli/args.collect_parameters reads them)."""
    if file:
        parser.add_argument("-f", "--parameters-file", dest="params_file", metavar="PARAMS.yaml",
                            help="papermill 파라미터 YAML (예: params/check.yaml) / papermill parameters YAML")
    parser.add_argument("-p", "--parameter", dest="params", nargs=2, action="append", default=[],
                        metavar=("NAME", "VALUE"), help="파라미터 하나 / one parameter")


def add_limits(parser: argparse.ArgumentParser) -> None:
    """--timeout and --memory: the notebook's time_limit and memory_limit for every root (runbook_lib/engine/limits.py)."""
    parser.add_argument("--timeout", type=int, default=None, metavar="SECONDS",
                        help="root 마다 실행 시간 한도, 넘으면 그 root 는 멈추고 실패 (기본 300) / a time limit per root; "
                             "a root beyond it stops and fails (default 300)")
    parser.add_argument("--memory", type=int, default=None, metavar="MIB",
                        help="커널마다 메모리 한도(MiB), 넘으면 그 root 는 멈추고 실패 (기본 768) / a memory limit per "
                             "kernel in MiB; a root beyond it stops and fails (default 768)")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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
        print(say("cli.main.interrupted_ctrl_c_runs"), file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `runbook lab-init --list | head`: the reader left early; no traceback for that
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's own flush at exit would raise again
        return EXIT_FAILED


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C


def cmd_run(args) -> int:
    from runbook_lib.cdi import format_extras
    from runbook_lib.evidence.archive import packaged_notebook

    notebook = Path(args.notebook) if args.notebook else packaged_notebook()
    roots = getattr(args, "roots", None) or [args.root]
    if len(roots) == 1 and notebook.is_file():
        from runbook_lib.kernel import early as kernel_early

        # the kernel boots while papermill is imported; stopped at exit if the run is refused
        kernel_early.spawn_for_notebook(str(notebook))
    format_extras.skip_for_this_process()  # before papermill: see runbook_lib/cdi/format_extras.py
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
    print(f"보관 위치 / archive: {os.path.abspath(result.run_dir)}")
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
            print(f"  오류 / error: {result}")  # the run crashed before its notebook: what it said
            continue
        all_ok = all_ok and result.ok
        print(render_run(result.manifest, result.run_dir))
        print(f"보관 위치 / archive: {os.path.abspath(result.run_dir)}")
    return EXIT_OK if all_ok else EXIT_FAILED


def render_run(manifest: dict, run_dir: Path | None = None) -> str:
    """The steps, then the result; a failed run ends with its own reason and where its notebook is
    (runbook_lib/evidence/stop_reason.py), never the name of the exception papermill raised."""
    from runbook_lib.findings.text import under_step

    lines = []
    for rec in manifest["steps"]:
        title = (rec.get("title") or {}).get("en", "")
        number = "" if str(rec.get("step")) == str(rec.get("id")) else f"[{rec.get('step')}]"  # restart, pod: no number
        lines.append(f"  {number:<5} {rec.get('id', ''):<13} {rec.get('status', ''):<10} {title}")
        lines += under_step(rec)  # where, what, the fix: what an operator needs without opening the notebook
    verdict = "통과 / PASSED" if manifest["ok"] else "실패 / FAILED"
    mode = manifest.get("mode") or (manifest.get("parameters") or {}).get("mode") or "apply"  # stopped early: as asked
    lines.append(f"결과 / result: {verdict} ({manifest['label']}, mode={mode})")
    if not manifest["ok"]:
        lines += _why(manifest, run_dir)
    return "\n".join(lines)


def _why(manifest: dict, run_dir: Path | None) -> list[str]:
    import json

    from runbook_lib.evidence import stop_reason
    from runbook_lib.evidence.archive import NOTEBOOK_NAME

    executed = Path(run_dir or ".") / NOTEBOOK_NAME
    if run_dir is not None and executed.is_file():
        return stop_reason.lines(executed, json.loads(executed.read_text(encoding="utf-8")))
    err = manifest.get("error") or {}  # no executed notebook (the kernel never started): what stopped it
    return [f"  {line}" for line in str(err.get("evalue") or "").split("\n") if line.strip()]


def cmd_summary(args) -> int:
    from runbook_lib.evidence.summary import render, summarize

    archive = Path(args.archive)
    if not archive.is_dir():
        raise Refused(str(say("cli.main.archive_folder_not_found", archive=archive)))
    table = summarize(archive, students=True if args.students else None)
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
