"""A failed run is evidence too: the executed notebook of a failed apply run shows, near the top, which step
failed and its message (with how to fix it), and the summary of what was done before it.

papermill's own banner (the first cell of a failed notebook) only links to the failing cell. The runbook's
status box sits in the validation cell, before any step, and is updated in place as the run goes on
(IPython's update_display), so an archived notebook tells its outcome without scrolling.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kernel_ports import run_papermill
from reliability_helpers import BASE, CDI, CONFIG, NOTEBOOK, PAPERMILL, TOOLKIT, assert_bilingual, make_root
from runbook_lib.notebook import STATUS_MIME
from runbook_lib.engine.result import STEP_MIME, SUMMARY_MIME, read_record

BROKEN = BASE.replace(b'default_runtime_name = "runc"', b'default_runtime_name = "runc')
BROKEN_LINE = BROKEN[: BROKEN.index(b"default_runtime_name")].count(b"\n") + 1


def _setup_bad_cdi(root: Path) -> None:
    (root / CONFIG).write_bytes(BASE)
    (root / "etc/cdi").mkdir()
    (root / CDI).write_text('cdiVersion: "0.5.0"\nkind: example.com/fpga\ndevices:\n  - name: all\n'
                            '    containerEdits:\n      deviceNodes:\n        - path: /dev/fpga0\n')


CASES = {
    "cdi-kind": _setup_bad_cdi,
    "broken-toml": (lambda root: (root / CONFIG).write_bytes(BROKEN)),
    "good": (lambda root: (root / CONFIG).write_bytes(BASE)),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The three notebooks, executed by papermill: {case: (root, returncode, notebook)}."""
    base = tmp_path_factory.mktemp("evidence")

    def one(case):
        root = make_root(base / case)
        CASES[case](root)
        out = base / f"{case}.ipynb"
        proc = run_papermill([str(PAPERMILL), "--log-level", "ERROR", "--no-progress-bar", str(NOTEBOOK), str(out),
                              "-p", "root", str(root)], capture_output=True, text=True, timeout=300)
        return case, (root, proc.returncode, json.loads(out.read_text()), out)

    # One after the other: plain papermill's kernels take TCP ports that jupyter_client picks at random, and two
    # started at the same moment can pick the same one (the second "died before replying to kernel_info").
    return dict(one(case) for case in CASES)


def _outputs(nb: dict, mime: str) -> list[tuple[int, dict]]:
    return [(i, read_record(o["data"][mime])) for i, c in enumerate(nb["cells"]) for o in c.get("outputs", [])
            if mime in o.get("data", {})]


def _text(nb: dict, index: int, mime: str) -> str:
    for o in nb["cells"][index]["outputs"]:
        if mime in o.get("data", {}):
            t = o["data"]["text/plain"]
            return "".join(t) if isinstance(t, list) else t
    raise AssertionError(f"no {mime} output in cell {index}")


def _first_step_cell(nb: dict) -> int:
    return min(i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code" and "rb.plan(" in "".join(c["source"]))


def test_failed_run_names_the_step_and_message_at_the_top(runs):
    root, code, nb, _ = runs["cdi-kind"]
    assert code != 0, "a failed apply run makes papermill exit non-zero"
    assert "papermill-error-cell-tag" in nb["cells"][0]["metadata"].get("tags", []), "papermill's banner is first"
    statuses = _outputs(nb, STATUS_MIME)
    assert len(statuses) == 1, "one status box, updated in place"
    index, record = statuses[0]
    assert index < _first_step_cell(nb), "the status box is above every step"
    assert record["state"] == "failed"
    assert record["failed"]["step"] == 6 and record["failed"]["status"] == "failed"
    assert "example.com/fpga" in record["message"]["en"] and "example.com/fpga" in record["message"]["ko"]
    text = _text(nb, index, STATUS_MIME)
    assert_bilingual(text)
    assert "6" in text.splitlines()[0] and "example.com/fpga" in text
    assert "fix:" in text and "고치기:" in text, "how to fix it is in the box too"
    # the plan refused before its first write: every other step is shown as not run, and nothing was written
    done = {s["step"]: s["status"] for s in record["steps"]}
    assert done[6] == "failed" and all(done[n] == "skipped" for n in (1, 2, 3, 4, 5, 7, 8))
    assert "before anything was written" in text and "CDI" in text
    assert (root / CONFIG).read_bytes() == BASE and not (root / TOOLKIT).exists(), "a refused run writes nothing"


def test_failing_cell_shows_the_step_record_and_the_summary_so_far(runs):
    _, _, nb, _ = runs["cdi-kind"]
    failing = [i for i, c in enumerate(nb["cells"]) if any(o["output_type"] == "error" for o in c.get("outputs", []))]
    assert len(failing) == 1
    cell = nb["cells"][failing[0]]
    error = next(o for o in cell["outputs"] if o["output_type"] == "error")
    assert error["ename"] == "Refused" and "nothing was written" in error["evalue"]
    assert any("example.com/fpga" in line for line in error["traceback"]), "the refusal and its fix, no traceback"
    steps = [r for i, r in _outputs(nb, STEP_MIME) if i == failing[0]]
    assert steps and steps[0]["status"] == "failed" and steps[0]["step"] == 6
    summaries = _outputs(nb, SUMMARY_MIME)
    assert [i for i, _ in summaries] == [failing[0]]
    summary = summaries[0][1]
    assert summary["final"] is False and summary["ok"] is False
    assert [s["step"] for s in summary["steps"]][:9] == list(range(1, 10))


def test_failed_toml_run_points_at_the_line(runs):
    root, code, nb, _ = runs["broken-toml"]
    assert code != 0
    (index, record), = _outputs(nb, STATUS_MIME)
    assert record["state"] == "failed" and record["failed"]["step"] == 2
    text = _text(nb, index, STATUS_MIME)
    assert f"/etc/containerd/config.toml:{BROKEN_LINE}" in text
    assert (root / CONFIG).read_bytes() == BROKEN


def test_successful_run_says_finished_at_the_top(runs):
    root, code, nb, _ = runs["good"]
    assert code == 0
    (index, record), = _outputs(nb, STATUS_MIME)
    assert index < _first_step_cell(nb)
    assert record["state"] == "finished" and record["failed"] is None
    assert all(s["status"] in ("changed", "unchanged", "passed", "skipped") for s in record["steps"])
    assert len(record["steps"]) >= 8


def _archived_page(path):
    import nbformat

    from runbook_lib.evidence import html as notebook_html
    return notebook_html.render(nbformat.read(str(path), as_version=4))


def _nbconvert_page(path):
    from nbconvert import HTMLExporter
    return HTMLExporter().from_filename(str(path))[0]


@pytest.mark.parametrize("page", [_archived_page, _nbconvert_page], ids=["archived-page", "nbconvert"])
def test_html_of_a_failed_run_shows_the_failure_before_the_first_step(runs, page):
    """What a person opening the HTML sees first: the page `runbook run` archives, and nbconvert's."""
    _, _, _, path = runs["cdi-kind"]
    body = page(path)
    failure = body.index("the plan refused at step 6")
    first_step = body.index("Step 1")
    assert failure < first_step


def test_show_reports_the_failure(runs):
    _, _, _, path = runs["cdi-kind"]
    proc = subprocess.run([sys.executable, "-m", "runbook_lib.show", str(path)], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "failed" in proc.stdout and "example.com/fpga" in proc.stdout
