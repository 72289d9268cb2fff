"""An action cell has one output: `display(plan)` then `rb.write(plan)` in the same cell add what was written to
the plan's own output (each output costs every later save of the notebook, docs/BENCHMARKS.md run G). A write run
in a later cell (JupyterLab) says what it wrote in that cell's own output, not in an earlier cell's."""

from __future__ import annotations

import nbformat
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from helpers import put_course_fixture
from runbook_lib.kernel.app import NAME as KERNEL


def _texts(cell) -> list[str]:
    return ["".join(o.get("data", {}).get("text/plain", "")) for o in cell.outputs]


def test_the_write_adds_to_its_plans_output_in_the_same_cell_and_has_its_own_in_a_later_one(tmp_path):
    root = tmp_path / "root"
    put_course_fixture(root)
    nb = new_notebook(cells=[
        new_code_cell(f"from runbook_lib import notebook as nb\nrb = nb.start(root={str(root)!r}, mode='apply')"),
        new_code_cell('plan = rb.plan("prepare")\ndisplay(plan)\nrb.write(plan)'),
        new_code_cell('plan = rb.plan("runtime")\ndisplay(plan)'),
        new_code_cell("rb.write(plan)"),
    ], metadata={"kernelspec": {"name": KERNEL, "display_name": KERNEL, "language": "python"}})
    NotebookClient(nb, timeout=120, kernel_name=KERNEL, resources={"metadata": {"path": str(tmp_path)}}).execute()
    nbformat.validate(nb)
    same, = _texts(nb.cells[1])  # one output: the plan, then what was written
    assert same.startswith("계획 / plan — 1.") and "written: /etc/containerd/config.toml" in same.splitlines()[-1]
    shown, = _texts(nb.cells[2])
    assert shown.startswith("계획 / plan — 2.") and "written:" not in shown  # not the later cell's write
    later, = _texts(nb.cells[3])
    assert later.splitlines()[0] == "썼습니다 / written: /etc/containerd/config.toml"
