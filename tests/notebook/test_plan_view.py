"""An action cell has one output: `display(plan)` then `rb.write(plan)` in the same cell add what was written to
the plan's own output (each output costs every later save of the notebook, docs/BENCHMARKS.md run G). A write run
in a later cell (JupyterLab) says what it wrote in that cell's own output, not in an earlier cell's."""

from __future__ import annotations

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from helpers import put_course_fixture, started_kernel
from kernel_ports import notebook_client
KERNEL = "python3"  # the notebooks' kernel: ipykernel's stock kernelspec
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
    notebook_client(nb, timeout=120, kernel_name=KERNEL, resources={"metadata": {"path": str(tmp_path)}}).execute()
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
    notebook_client(nb, timeout=120, kernel_name=KERNEL, allow_errors=True,
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
    plan_text = "".join(nb.cells[1].outputs[0]["data"]["text/plain"])
    for plan_cell, check_cell, shown in ((1, 2, True), (3, 4, False)):
        record = _record(nb.cells[check_cell])
        notes = [n[k] for n in record["notes"] for k in ("ko", "en")]
        text = _record_text(nb.cells[check_cell])
        assert record["status"] == "changed" and notes
        assert [w for w in notes if w in text] == ([] if shown else notes)
        assert f"[CHANGED] {record['step']}." in text  # the verdict itself is always said
        # what the step found on disk (issue 51) is no plan's words: said under the verdict, once
        found = [record["message"]["ko"], record["message"]["en"]]
        assert all(text.count(w) == 1 for w in found) and not any(w in plan_text for w in found), text


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


def _messages(tmp_path, root, mode: str, cells: list[str]) -> list[list[tuple[str, str]]]:
    """Per cell, the runbook's output messages in order: (message type, display id or the text's first line)."""
    with started_kernel(KERNEL, cwd=str(tmp_path)) as (_, kc):
        out = []
        for code in [f"from runbook_lib import notebook as nb\nrb = nb.start(root={str(root)!r}, mode={mode!r})"] + cells:
            seen: list[tuple[str, str]] = []

            def hook(msg, seen=seen):
                kind, content = msg["msg_type"], msg["content"]
                if kind in ("display_data", "update_display_data"):
                    ident = (content.get("transient") or {}).get("display_id") or ""
                    seen.append((kind, ident.rsplit("-", 1)[0] + ":" + content["data"]["text/plain"].split("\n")[0]))
                elif kind == "error":
                    seen.append((kind, content["ename"]))
            kc.execute_interactive(code, timeout=120, output_hook=hook)
            out.append(seen)
        return out


def test_an_action_cell_sends_its_plan_once_with_what_was_written(tmp_path):
    root = tmp_path / "root"
    put_course_fixture(root)
    _, prepare, runtime = _messages(tmp_path, root, "apply", [
        'plan = rb.plan("prepare")\ndisplay(plan)\nrb.write(plan)',
        'plan = rb.plan("runtime")\ndisplay(plan)\nrb.write(plan)'])
    for cell, number in ((prepare, 1), (runtime, 2)):
        plans = [m for m in cell if "runbook-plan" in m[1]]
        assert [kind for kind, _ in plans] == ["display_data"]  # one message: no display and then its update
        assert plans[0][1] == f"runbook-plan:계획 / plan — {number}. " + plans[0][1].split(f"{number}. ", 1)[1]


def test_a_plan_held_for_its_write_is_still_shown_above_what_stops_the_cell(tmp_path):
    root = tmp_path / "root"
    put_course_fixture(root)
    _, alone, early, checked = _messages(tmp_path, root, "apply", [
        'plan = rb.plan("prepare")\ndisplay(plan)',  # no write in the cell: shown when the cell ends
        'plan = rb.plan("runtime")\ndisplay(plan)\nrb.write(plan)',  # step 1 not written yet: refused
        'plan = rb.plan("prepare")\ndisplay(plan)\nprint("a print of the cell")\nrb.write(plan)'])
    assert [kind for kind, _ in alone if "runbook-plan" in _] == ["display_data"]
    kinds = [kind for kind, text in early if kind == "error" or "runbook-plan" in text]
    assert kinds == ["display_data", "error"]  # the plan, then the refusal, in that order
    assert [kind for kind, text in checked if "runbook-plan" in text] == ["display_data"]


def test_in_check_mode_the_plan_cell_still_shows_its_plan(tmp_path):
    root = tmp_path / "root"
    put_course_fixture(root)
    _, prepare = _messages(tmp_path, root, "check", ['plan = rb.plan("prepare")\ndisplay(plan)\nrb.write(plan)'])
    (plan,) = [text for kind, text in prepare if "runbook-plan" in text]
    assert plan.startswith("runbook-plan:apply 모드라면 / apply mode would — 1.")
