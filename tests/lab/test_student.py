"""A check cell of the student edition, in a real kernel: it shows the step card once, as HTML and as text, and
nothing else (it once printed the StepResult's repr under the card, several lines of Python)."""

from __future__ import annotations

from kernel_ports import kernel_manager
from runbook_lib.engine.result import STEP_MIME
from runbook_lib.lab.init_root import add_mistakes, finished_lab


def outputs(code: str) -> list[dict]:
    km = kernel_manager("python3")  # the notebooks' kernel: ipykernel's stock one (this xdist worker's ports)
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        shown: list[dict] = []

        def hook(msg):
            if msg["msg_type"] in ("stream", "display_data", "execute_result", "error"):
                shown.append({"type": msg["msg_type"], **msg["content"]})

        kc.execute_interactive(code, timeout=120, output_hook=hook)
        return shown
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_a_passing_and_a_failing_check_cell_each_show_the_card_alone(tmp_path):
    finished_lab(str(tmp_path / "kim"))
    add_mistakes(str(tmp_path / "lee"), "string-boolean")
    start = "from runbook_lib.lab import student\nrb = student.start(root={root!r})\n"
    passing = outputs(start.format(root=str(tmp_path / "kim")) + 'rb.check_step("options")')
    cards = [o for o in passing if o["type"] in ("display_data", "execute_result") and STEP_MIME in o["data"]]
    assert len(cards) == 1 and cards[0]["type"] == "execute_result"
    assert "[PASSED] 3." in cards[0]["data"]["text/plain"] and "<pre" in cards[0]["data"]["text/html"]
    assert [o for o in passing if "StepResult(" in str(o)] == []
    assert [o for o in passing if "StepCard" in str(o)] == []

    failing = outputs(start.format(root=str(tmp_path / "lee")) + 'rb.check_step("options")')
    cards = [o for o in failing if o["type"] in ("display_data", "execute_result") and STEP_MIME in o["data"]]
    assert len(cards) == 1 and "[FAILED] 3." in cards[0]["data"]["text/plain"]
    assert [o["ename"] for o in failing if o["type"] == "error"] == ["StepFailed"]
    assert not any("StepResult(" in str(o) for o in failing)
