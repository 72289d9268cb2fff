"""A student's JupyterLab session: one real kernel (the notebook's own, through jupyter_client), and the cells of
notebooks/run.ipynb run one at a time, in the order the student chooses, re-run, or edited first."""

from __future__ import annotations

import json

from helpers import NOTEBOOK
from kernel_ports import kernel_manager


# the code cells, by what they do: "params", "start", then "<step>" (its plan-and-write cell) and
# "<step>?" (its check cell), then "restart", the pod through the handler ("pod", "pod?") and "summary"
STEPS = ["prepare", "runtime", "options", "default", "parse", "cdi", "runtimeclass", "report", "containerd"]
NAMES = ["params", "start"] + [n for s in STEPS for n in (s, s + "?")] + ["restart", "pod", "pod?", "summary"]


def code_cells(notebook=NOTEBOOK, names=NAMES) -> dict[str, str]:
    sources = ["".join(c["source"]) for c in json.loads(notebook.read_text())["cells"] if c["cell_type"] == "code"]
    assert len(sources) == len(names), "the notebook's cells changed: update the names"
    return dict(zip(names, sources))


class Student:
    """What the student sees of each cell: its text outputs (status-box updates included) and its error."""

    def __init__(self, cells: dict[str, str] | None = None):
        self.cells = cells if cells is not None else code_cells()
        self.km = kernel_manager("python3")  # on this xdist worker's own ports (tests/kernel_ports.py)
        self.km.start_kernel()
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)

    def run(self, code: str, timeout: float = 60) -> tuple[str, str | None]:
        """(what the cell shows, the error's name or None). A cell still running after `timeout` fails the test."""
        shown: list[str] = []
        error: list[str] = []

        def hook(msg):
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                shown.append(content["text"])
            elif kind in ("display_data", "execute_result", "update_display_data"):
                shown.append(content["data"].get("text/plain", "") + "\n")
            elif kind == "error":
                error.append(content["ename"])
                shown.append("\n".join(content["traceback"]) + "\n")

        self.kc.execute_interactive(code, timeout=timeout, output_hook=hook)
        return "".join(shown), (error[0] if error else None)

    def cell(self, name: str, timeout: float = 60) -> tuple[str, str | None]:
        return self.run(self.cells[name], timeout)

    def close(self) -> None:
        self.kc.stop_channels()
        if self.km.is_alive():
            self.km.shutdown_kernel(now=True)
