"""What each output of an executed runbook costs plain papermill, by kind of output.

    <env>/bin/python bench/output_costs.py EXECUTED.ipynb     # prints one JSON object

Plain papermill saves the whole notebook at every cell's start and end (nbformat.writes: a deep copy, the schema's
validation and an indented JSON dump of everything, then the file), so an output is paid for once per save after
its cell ran: the first cells' outputs are written ~70 times, the summary's twice. Each output also arrives as
a kernel message that nbclient turns into a validated output node. Measured in this process on the executed
notebook itself (CPU time, median of repeats):

- the cost of one save as a function of the notebook's size: writes() of the notebook without outputs and with
  all of them give a per-byte figure (a save is ~linear in the JSON it writes);
- each output's bytes × the saves it appears in × that figure, plus the time to build its node from a message.

Grouped by what the output is: a step's record, the summary's record, a plan's view (HTML / text), the status
box, the run's overview, other text. The same model over every output reproduces the measured difference between
the runbook and its `pass` floor (make bench: phases) to within the machine's noise.
"""

from __future__ import annotations

import copy
import json
import statistics
import sys
import time

import nbformat
from nbformat.v4 import output_from_msg


def cpu(fn, repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


def kind(cell_source: str, mime: str) -> str:
    if mime.endswith("runbook.step+json"):
        return "step record (vnd.runbook.step+json)"
    if mime.endswith("runbook.summary+json"):
        return "summary record (vnd.runbook.summary+json)"
    if mime.endswith("runbook.status+json"):
        return "status box record (vnd.runbook.status+json)"
    if "nb.summary(" in cell_source:
        return f"summary view ({mime})"
    if "rb.plan(" in cell_source and mime in ("text/html", "text/plain"):
        return f"plan view with its diff ({mime})"
    if "nb.start(" in cell_source:
        return f"start: parameters, plan overview, status box ({mime})"
    return f"other ({mime})"


def main(path: str) -> dict:
    nb = nbformat.read(path, as_version=4)
    bare = copy.deepcopy(nb)
    for cell in bare.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    full_bytes, bare_bytes = len(nbformat.writes(nb)), len(nbformat.writes(bare))
    t_full, t_bare = cpu(lambda: nbformat.writes(nb)), cpu(lambda: nbformat.writes(bare))
    per_byte = (t_full - t_bare) / max(1, full_bytes - bare_bytes)
    cells = nb.cells
    groups: dict[str, dict] = {}
    for index, cell in enumerate(cells):
        if cell.cell_type != "code":
            continue
        saves = 2 * (len(cells) - index - 1) + 2  # its own end, every later cell's start and end, the last write
        source = "".join(cell.source)
        for out in cell.outputs:
            msg_type = out.output_type if out.output_type != "execute_result" else "execute_result"
            content = {k: v for k, v in out.items() if k != "output_type"}
            msg = {"msg_type": msg_type, "header": {"msg_type": msg_type}, "content": content}
            build = cpu(lambda: output_from_msg(msg), repeat=5)
            data = out.get("data") or {"stream": out.get("text", "")}
            total = sum(len(json.dumps(v, ensure_ascii=False)) for v in data.values()) or 1
            for mime, value in data.items():
                size = len(json.dumps(value, ensure_ascii=False))
                g = groups.setdefault(kind(source, mime), {"outputs": 0, "bytes": 0, "saves_s": 0.0, "message_s": 0.0})
                g["outputs"] += 1
                g["bytes"] += size
                g["saves_s"] += size * saves * per_byte
                g["message_s"] += build * size / total  # one message carries every MIME type of the output
    for g in groups.values():
        g["total_s"] = g["saves_s"] + g["message_s"]
    ranked = dict(sorted(groups.items(), key=lambda kv: -kv[1]["total_s"]))
    return {"notebook_bytes": full_bytes, "without_outputs_bytes": bare_bytes, "save_s_full": t_full,
            "save_s_without_outputs": t_bare, "per_kib_per_save_ms": per_byte * 1024 * 1000,
            "saves": 2 * len(cells) + 2, "outputs_total_s": sum(g["total_s"] for g in groups.values()),
            "by_kind": ranked}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1]), ensure_ascii=False))
