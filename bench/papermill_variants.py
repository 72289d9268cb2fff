"""What would cut plain papermill's time: the runbook notebook reshaped in a temporary folder (never in
notebooks/), each shape run through plain `papermill` in the node install (bench/.venv-node, made by
bench/run.py), paired round by round with the stock empty run. An experiment for the notebook's authors, not
part of `make bench`:

    .venv/bin/python bench/papermill_variants.py [ROUNDS]

Shapes: as is; without markdown cells (each cell, even markdown, costs papermill two full saves); with each
step's `nb.step` and `nb.check` in one cell (half the kernel round trips and saves of the steps); both."""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import EMPTY, NODE_BIN, REPO, STOCK_BIN, fresh_root, run  # noqa: E402

QUIET = ["--log-level", "WARNING", "--no-progress-bar"]


def reshape(nb: dict, *, drop_markdown: bool, merge_steps: bool) -> dict:
    cells = [c for c in nb["cells"] if not (drop_markdown and c["cell_type"] == "markdown")]
    if merge_steps:
        merged = []
        for cell in cells:
            src = "".join(cell["source"])
            prev = merged[-1] if merged else None
            if (cell["cell_type"] == "code" and src.startswith("nb.check(") and prev is not None
                    and prev["cell_type"] == "code" and "".join(prev["source"]).startswith("nb.step(")):
                prev["source"] = "".join(prev["source"]).rstrip("\n") + "\n" + src
                continue
            merged.append(json.loads(json.dumps(cell)))
        cells = merged
    return {**nb, "cells": cells}


def main(rounds: int = 3) -> int:
    nb = json.loads((REPO / "notebooks/run.ipynb").read_text())
    shapes = {"as_is": (False, False), "no_markdown": (True, False), "step_and_check_merged": (False, True),
              "both": (True, True)}
    work = Path(tempfile.mkdtemp(prefix="runbook-variants-"))
    paths = {}
    for name, (drop, merge) in shapes.items():
        paths[name] = work / f"{name}.ipynb"
        paths[name].write_text(json.dumps(reshape(nb, drop_markdown=drop, merge_steps=merge)))
    ratios: dict[str, list[float]] = {n: [] for n in shapes}
    walls: dict[str, list[float]] = {n: [] for n in [*shapes, "stock_empty"]}
    for r in range(rounds):
        stock = run([STOCK_BIN / "papermill", *QUIET, EMPTY, work / "e.ipynb", "-p", "x", "1"])["wall"]
        walls["stock_empty"].append(stock)
        for name in shapes:
            root = fresh_root(work, f"{name}-{r}")
            res = run([NODE_BIN / "papermill", *QUIET, paths[name], work / "out.ipynb", "-p", "root", root])
            assert res["rc"] == 0, name
            walls[name].append(res["wall"])
            ratios[name].append(res["wall"] / stock)
    cells = {n: len(json.loads(paths[n].read_text())["cells"]) for n in shapes}
    print(json.dumps({"rounds": rounds, "cells": cells,
                      "wall_median": {n: round(statistics.median(v), 3) for n, v in walls.items()},
                      "ratio_to_stock_empty_median_per_round": {n: round(statistics.median(v), 3)
                                                                for n, v in ratios.items()}}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*(int(a) for a in sys.argv[1:2])))
