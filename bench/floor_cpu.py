"""What the runbook's own work and outputs cost plain papermill over its `pass` floor, in CPU time, on a busy machine.

    .venv/bin/python bench/floor_cpu.py [--rounds 5]      # one JSON object, and a table on stderr

End-to-end runs of plain papermill differ by more than the runbook's whole share (~0.2 s) when other work shares
the cores; the three parts that make the difference between the runbook and its floor are measured here one by
one, in this process, as CPU time (median of rounds):

- **cells**: the runbook's code cells run in an IPython shell on a fresh lab root (display included, as text; no
  kernel messages), against the same cells as `pass`;
- **saves**: papermill's saves replayed on the executed notebook: at every cell's start and end, the notebook
  as it was then (the outputs of the cells run so far) through `nbformat.writes`, as papermill writes it,
  against the same replay with no outputs;
- **messages**: every output built from its kernel message as nbclient does (`output_from_msg`, its validation).

The executed notebook comes from one plain papermill run of the checkout's notebooks/run.ipynb (not timed).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _cpu(fn) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def _fresh_root(parent: Path, name: str) -> str:
    root = parent / name
    subprocess.run([sys.executable, "-m", "runbook_lib.cli", "lab-init", str(root)], check=True,
                   stdout=subprocess.DEVNULL)
    return str(root)


def cells_cpu(sources: list[str], root: str) -> float:
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_cell(sources[0])  # the parameters
    shell.run_cell(f"root = {root!r}")
    with contextlib.redirect_stdout(io.StringIO()):
        return _cpu(lambda: [shell.run_cell(src) for src in sources[1:]])


def saves_cpu(nb) -> float:
    """papermill's two saves per cell (its start and its end), each of the notebook as it was at that moment."""
    import nbformat

    states, shown = [], copy.deepcopy(nb)
    for cell in shown.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    for index, cell in enumerate(nb.cells):
        states.append(copy.deepcopy(shown))  # the cell's start
        if cell.cell_type == "code":
            shown.cells[index].outputs = copy.deepcopy(cell.outputs)
        states.append(copy.deepcopy(shown))  # its end
    return _cpu(lambda: [nbformat.writes(state) for state in states])


def messages_cpu(nb) -> float:
    from nbformat.v4 import output_from_msg

    msgs = [{"msg_type": o.output_type, "header": {"msg_type": o.output_type},
             "content": {k: v for k, v in o.items() if k != "output_type"}}
            for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    return _cpu(lambda: [output_from_msg(m) for m in msgs])


def main(argv=None) -> int:
    import nbformat

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--notebook", default=str(REPO / "notebooks" / "run.ipynb"))
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="floor-cpu-"))
    executed = work / "out.ipynb"
    subprocess.run([Path(sys.executable).with_name("papermill"), "--log-level", "WARNING", "--no-progress-bar",
                    args.notebook, executed, "-p", "root", _fresh_root(work, "executed")], check=True, cwd=work)
    nb = nbformat.read(executed, as_version=4)
    bare = copy.deepcopy(nb)
    for cell in bare.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    sources = ["".join(c.source) for c in nbformat.read(args.notebook, as_version=4).cells if c.cell_type == "code"]
    floor = [sources[0]] + ["pass"] * (len(sources) - 1)
    import runbook_lib.notebook  # noqa: F401 - imported by the kernel's warm-up before the cells, as in a run

    rounds: dict[str, list[float]] = {k: [] for k in ("cells", "cells_floor", "saves", "saves_floor", "messages")}
    for r in range(args.rounds):
        rounds["cells"].append(cells_cpu(sources, _fresh_root(work, f"r{r}")))
        rounds["cells_floor"].append(cells_cpu(floor, _fresh_root(work, f"f{r}")))
        rounds["saves"].append(saves_cpu(nb))
        rounds["saves_floor"].append(saves_cpu(bare))
        rounds["messages"].append(messages_cpu(nb))
    med = {k: statistics.median(v) for k, v in rounds.items()}
    outputs = sum(len(c.outputs) for c in nb.cells if c.cell_type == "code")
    over = {"cells": med["cells"] - med["cells_floor"], "saves": med["saves"] - med["saves_floor"],
            "messages": med["messages"]}
    report = {"rounds": args.rounds, "notebook_bytes": len(nbformat.writes(nb)), "outputs": outputs,
              "medians_s": med, "over_floor_s": over, "over_floor_total_s": sum(over.values())}
    print(json.dumps(report))
    print(f"\n| over the floor, CPU ms (median of {args.rounds}) | runbook | floor | difference |", file=sys.stderr)
    print("|---|---:|---:|---:|", file=sys.stderr)
    for k in ("cells", "saves"):
        print(f"| {k} | {med[k] * 1000:.0f} | {med[k + '_floor'] * 1000:.0f} | {over[k] * 1000:.0f} |", file=sys.stderr)
    print(f"| messages ({outputs} outputs) | {med['messages'] * 1000:.0f} | | {over['messages'] * 1000:.0f} |",
          file=sys.stderr)
    print(f"| total ({report['notebook_bytes']} bytes executed) | | | {report['over_floor_total_s'] * 1000:.0f} |",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
