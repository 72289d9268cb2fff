"""What each trick of the class grading buys: the same class graded with one trick taken away at a time.

    .venv/bin/python bench/grade_tricks.py [--students 24] [--rounds 3]

Variants, each a fresh process running `grade_class(..., jobs=2)` as `runbook grade --jobs 2` does (timed with
wait4: wall, and CPU of the whole process tree), in rotated order every round:

- shipped: kernels forked from the zygote, one started ahead of need for each worker, one process driving every student;
- no_zygote: the same, but every kernel a new `python -m runbook_lib.kernel` (what the zygote saves);
- none_ahead: the same, but each kernel started only when its student's turn comes (what starting ahead saves);
- papermill_workers: the grading as it was before: papermill once per student in two forked worker processes
  (runbook_lib.evidence.parallel.run_many), each run with an early kernel and without per-cell saves.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

VARIANTS = ("shipped", "no_zygote", "none_ahead", "papermill_workers")


def grade(variant: str, out: str, roots: list[str]) -> None:
    """In the child process: grade the class the variant's way."""
    from runbook_lib.cdi import format_extras

    format_extras.skip_for_this_process()  # as `runbook grade` does
    import papermill  # noqa: F401 - imported by `runbook grade` before grading too

    from runbook_lib.grading import grade as grading
    from runbook_lib.grading import runner
    from runbook_lib.kernel import pool

    if variant == "no_zygote":
        async def no_zygote():
            return None
        pool.Zygote.start = staticmethod(no_zygote)
    elif variant == "none_ahead":
        original = runner.grade_all

        async def none_ahead(notebook, jobs, version, workers, timeout, ahead=None):
            return await original(notebook, jobs, version, workers, timeout, ahead=0)
        runner.grade_all = none_ahead
    elif variant == "papermill_workers":
        from runbook_lib.evidence.parallel import run_many

        def old_way(notebook, jobs, version, workers, timeout):
            return list(run_many(notebook, jobs, Path(out), version, workers))
        runner.run_class = old_way
    grading.grade_class(roots, out, {}, jobs=2)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", type=int, default=24)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        variant, out, *roots = args.child
        grade(variant, out, roots)
        return 0
    import run as bench

    work = Path(tempfile.mkdtemp(prefix="grade-tricks-"))
    folder = bench.make_class(work, args.students)
    roots = [str(p) for p in sorted(folder.iterdir())]
    log = work / "log.txt"
    samples: dict[str, list[dict]] = {v: [] for v in VARIANTS}
    started, load_before = time.time(), os.getloadavg()[0]
    for r in range(args.rounds):
        for variant in VARIANTS[r % len(VARIANTS):] + VARIANTS[:r % len(VARIANTS)]:
            out = work / f"out-{variant}-{r}"
            res = bench.run([bench.PROJECT_PY, __file__, "--child", variant, out, *roots], log=log)
            bench.check_rc(variant, res, log)
            graded = len(json.loads((out / "grades.json").read_text())["students"])
            if graded != len(roots):
                raise SystemExit(f"{variant}: {graded} of {len(roots)} graded")
            samples[variant].append(res)
            shutil.rmtree(out, ignore_errors=True)
        print(f"round {r + 1}/{args.rounds} done ({time.time() - started:.0f} s)", file=sys.stderr, flush=True)
    shutil.rmtree(work, ignore_errors=True)
    med = {v: {k: statistics.median(s[k] for s in samples[v]) for k in ("wall", "cpu")} for v in VARIANTS}
    base = med["shipped"]
    load = f"{load_before:.1f} before / {os.getloadavg()[0]:.1f} after"
    print(json.dumps({"students": args.students, "rounds": args.rounds, "load": load, "medians": med,
                      "samples": samples}))
    print(f"\n| variant (class of {args.students}, jobs 2, median of {args.rounds}) | wall s | CPU s | wall vs shipped |",
          file=sys.stderr)
    print("|---|---:|---:|---:|", file=sys.stderr)
    for v in VARIANTS:
        print(f"| {v} | {med[v]['wall']:.1f} | {med[v]['cpu']:.1f} | {med[v]['wall'] / base['wall']:.2f}× |",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
