"""An action cell has one output: `display(plan)` then `rb.write(plan)` in the same cell add what was written to
the plan's own output (each output costs every later save of the notebook, docs/BENCHMARKS.md run G). A write run
in a later cell (JupyterLab) says what it wrote in that cell's own output, not in an earlier cell's."""

from __future__ import annotations

import nbformat
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from helpers import put_course_fixture
from runbook_lib.kernel.app import NAME as KERNEL
from runbook_lib.notebook import STEP_MIME


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


def _run(tmp_path, root, mode: str, cells: list[str]):
    nb = new_notebook(cells=[new_code_cell(f"from runbook_lib import notebook as nb\nrb = nb.start(root={str(root)!r}, mode={mode!r})")]
                      + [new_code_cell(c) for c in cells],
                      metadata={"kernelspec": {"name": KERNEL, "display_name": KERNEL, "language": "python"}})
    NotebookClient(nb, timeout=120, kernel_name=KERNEL, allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    return nb


def _record(cell) -> dict:
    from runbook_lib.engine.result import read_record
    (record,) = [read_record(o["data"][STEP_MIME]) for o in cell.outputs if STEP_MIME in o.get("data", {})]
    return record


def _record_text(cell) -> str:
    (text,) = ["".join(o["data"]["text/plain"]) for o in cell.outputs if STEP_MIME in o.get("data", {})]
    return text


def test_a_check_cell_does_not_repeat_what_its_plan_output_just_said_unless_the_step_failed(tmp_path):
    root = tmp_path / "root"
    put_course_fixture(root)
    nb = _run(tmp_path, root, "apply", [
        'plan = rb.plan("prepare")\ndisplay(plan)\nrb.write(plan)',
        'with rb.expect("prepare") as expect:\n    expect.true(True, "expect.toolkit_dir_exists")',
        'plan = rb.plan("runtime")\nrb.write(plan)',  # written, its plan never displayed
        'rb.check("runtime")',
    ])
    for plan_cell, check_cell, shown in ((1, 2, True), (3, 4, False)):
        record = _record(nb.cells[check_cell])
        words = [record["message"]["ko"], record["message"]["en"]] + [n[k] for n in record["notes"] for k in ("ko", "en")]
        text = _record_text(nb.cells[check_cell])
        assert record["status"] == "changed" and words
        assert [w for w in words if w in text] == ([] if shown else words)
        assert f"[CHANGED] {record['step']}." in text  # the verdict itself is always said
    plan_text = "".join(nb.cells[1].outputs[0]["data"]["text/plain"])
    assert all(w in plan_text for w in (_record(nb.cells[2])["message"]["ko"], _record(nb.cells[2])["message"]["en"]))


def test_a_failed_steps_check_cell_says_its_message_even_below_its_plan(tmp_path):
    root = tmp_path / "root"
    put_course_fixture(root)
    nb = _run(tmp_path, root, "apply", [
        'plan = rb.plan("prepare")\ndisplay(plan)\nrb.write(plan)',
        'with rb.expect("prepare") as expect:\n    expect.true(False, "expect.toolkit_dir_exists")',  # a check that fails
    ])
    record = _record(nb.cells[2])
    text = _record_text(nb.cells[2])
    plan_text = "".join(nb.cells[1].outputs[0]["data"]["text/plain"])
    notes = [n[k] for n in record["notes"] for k in ("ko", "en")]
    assert record["status"] == "failed" and notes
    assert all(n in plan_text for n in notes)  # the plan above said them, and the failed check says them again
    assert [n for n in notes if n in text] == notes
    assert record["message"]["ko"] in text and record["message"]["en"] in text
