"""The class notebook against `runbook grade` on the same class: both grade through grade_class, so the
notebook should cost only its own kernel and four small cells more (docs/BENCHMARKS.md, issue 23 measured
13.5 s against 3.7 s before the class kernel stopped compiling jsonschema's RFC 3987 grammar).

    .venv/bin/python bench/class_grade.py [--rounds 3]

Interleaved rounds on one demo class (tools/class_demo.py: five students); medians of wall and CPU seconds
(the CPU of the whole process tree, which other work on the machine disturbs far less), and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(REPO / "tools"))
import class_demo  # noqa: E402
from run import PROJECT_BIN, PROJECT_PY, run  # noqa: E402

TARGET = 1.25  # class notebook / runbook grade, CPU medians: one more kernel and its cells, nothing else


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="runbook-bench-class-") as tmp:
        work = Path(tmp)
        class_demo.make_class(work / "class")
        roots = sorted(str(p) for p in (work / "class").iterdir())
        times = {"grade": [], "class_notebook": []}
        for r in range(args.rounds):
            order = ["grade", "class_notebook"] if r % 2 == 0 else ["class_notebook", "grade"]
            for name in order:
                out = work / f"{name}-{r}"
                out.mkdir()
                cmd = ([PROJECT_BIN / "runbook", "grade", "--out", out, *roots] if name == "grade" else
                       [PROJECT_PY, "-m", "runbook_lib.runner", "--no-progress-bar", "--log-level", "ERROR",
                        REPO / "notebooks" / "class.ipynb", out / "class.ipynb", "-p", "roots",
                        f"{work / 'class'}/*", "-p", "out", out])
                res = run(cmd, log=work / "log.txt")
                if res["rc"] not in (0, 1):  # 1: some students fail, as the demo class must
                    print((work / "log.txt").read_text()[-2000:], file=sys.stderr)
                    return 2
                times[name].append(res)
    for key in ("wall", "cpu"):
        g = statistics.median(t[key] for t in times["grade"])
        c = statistics.median(t[key] for t in times["class_notebook"])
        print(f"{key:>4}: runbook grade {g:6.2f} s · class notebook {c:6.2f} s · ratio {c / g:4.2f}")
    cpu = statistics.median(t["cpu"] for t in times["class_notebook"]) / statistics.median(
        t["cpu"] for t in times["grade"])
    print(f"target (CPU ratio) ≤ {TARGET}: {'met' if cpu <= TARGET else 'NOT met'}")
    return 0 if cpu <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
