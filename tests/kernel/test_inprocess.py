"""The in-process path (runbook_lib/kernel/inprocess.py, run by runbook_lib/grading/student.py) against nbclient
with a real kernel: the same notebook, executed both ways, gives the same cells and outputs (but for timings and
ids). The notebook here holds the kinds of output a cell can make: text on both streams, text written to the
file descriptors themselves, displays, a display updated by its id, a cleared output, a value, an error that
its tag allows, and an error that ends the run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from runbook_lib.grading.grade import grade_class
from runbook_lib.kernel.app import NAME as KERNEL

CELLS = [
    "import sys, os\nprint('to stdout', root)\nprint('to stderr', file=sys.stderr)\nprint('again stdout')",
    "from IPython.display import display, HTML, Markdown\ndisplay(HTML('<b>bold</b>'))\nprint('between')\n"
    "display(Markdown('*md*'), metadata={'k': 1})",
    "h = display({'text/plain': 'first'}, raw=True, display_id='x')\nh2 = display('shown', display_id=True)",
    "from IPython.display import update_display\nupdate_display({'text/plain': 'second'}, raw=True, display_id='x')",
    "from IPython.display import clear_output\nprint('gone')\nclear_output()\nprint('kept')",
    "print('to the descriptor', file=sys.__stdout__, flush=True)\nos.write(2, b'raw stderr\\n')\n41 + 1",
    "",
    "x = {'a': [1, 2]}\nx",
    "1/0",
    "print('after the allowed error')\nundefined_name",
    "print('never runs')",
]
FD_CELL = next(i for i, c in enumerate(CELLS) if "sys.__stdout__" in c)  # the cell writing to descriptors 1 and 2


def make_notebook(path: Path) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": KERNEL, "language": "python"}
    params = nbformat.v4.new_code_cell('root = ""\nmode = "check"')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params] + [nbformat.v4.new_code_cell(c) for c in CELLS]
    nb.cells[9].metadata["tags"] = ["raises-exception"]  # "1/0": allowed, the run goes on
    nbformat.write(nb, str(path))
    return path


def comparable(nb: dict) -> list[dict]:
    """Each cell without what differs between two runs of one notebook: its id and timing records, and how a
    stream's text was cut into outputs. ipykernel sends a stream's text at a flush or on its 0.2 s flush timer,
    so a busy machine can cut one print into two outputs ("text", then "\n"); the text is the same."""
    out = []
    for cell in nb["cells"]:
        cell = {k: v for k, v in cell.items() if k != "id"}
        cell["metadata"] = {k: v for k, v in cell.get("metadata", {}).items() if k not in ("execution", "papermill")}
        if "outputs" in cell:
            outputs: list[dict] = []
            for o in cell["outputs"]:
                if o["output_type"] == "stream" and outputs and outputs[-1]["output_type"] == "stream" \
                        and outputs[-1]["name"] == o["name"]:
                    outputs[-1] = {**outputs[-1], "text": ["".join(outputs[-1]["text"]) + "".join(o["text"])]}
                else:
                    outputs.append({**o, "text": ["".join(o["text"])]} if o["output_type"] == "stream" else o)
            cell["outputs"] = outputs
        out.append(cell)
    return out


def unordered_streams(outputs: list[dict]) -> list:
    """A cell's outputs with its stream text as one text per stream, wherever and in how many pieces it came."""
    text = {name: "".join("".join(o["text"]) for o in outputs if o.get("name") == name) for name in ("stdout", "stderr")}
    return [o for o in outputs if o["output_type"] != "stream"] + [text]


def nbclient_run(path: Path, root: str, fails: bool = True) -> dict:
    """The notebook as nbclient runs it in the kernel, the parameters injected as the grader injects them."""
    from runbook_lib.grading.student import prepare

    from papermill.iorw import load_notebook_node

    nb = prepare(load_notebook_node(str(path)), path, {"root": root, "mode": "check"}, path.with_suffix(".out"))
    client = NotebookClient(nb, kernel_name=KERNEL, timeout=60)
    try:
        client.execute()
    except CellExecutionError:
        assert fails
    else:
        assert not fails
    return json.loads(nbformat.writes(nb))


@pytest.mark.slow
@pytest.mark.parametrize("fds", ["caught", "as inside pytest"])
def test_a_notebook_run_in_process_equals_nbclients_run_in_a_kernel(tmp_path, monkeypatch, fds):
    if fds == "caught":  # as outside pytest: ipykernel forwards what is written to fds 1 and 2 into the notebook
        monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)
    path = make_notebook(tmp_path / "kinds.ipynb")
    root = tmp_path / "class" / "ann"
    root.mkdir(parents=True)
    out = tmp_path / "out"
    result = grade_class([str(root)], out, {}, jobs=1, notebook=path, timeout=60)
    graded = json.loads((out / "ann" / "run.ipynb").read_text(encoding="utf-8"))
    expected = nbclient_run(path, str(root))
    ours = comparable(graded)
    # the grader's record of the failed cell is papermill's marker cell at the top; nbclient alone has none
    assert ours[0]["cell_type"] == "markdown" and "papermill-error-cell-tag" in ours[0]["metadata"]["tags"]
    ours = [c for c in ours if "papermill-error-cell-tag" not in c["metadata"].get("tags", [])]
    theirs = comparable(expected)
    assert len(ours) == len(theirs)
    # The cell writing to the descriptors: ipykernel forwards that text from a thread of its own that reads a pipe
    # (ipykernel.iostream.OutStream._watch_pipe_fd), so where it lands among the cell's other outputs, and in how
    # many pieces, is wherever that thread was when the kernel flushed, not a defined order (it varied run to run
    # here, with or without a terminal or CI=true). The in-process run places it deterministically: read at the
    # flush before the value, stdout then stderr. So that cell is compared with the kernel's as the same text on
    # each stream and the same other outputs, and ours as exactly that order.
    descriptors = next(i for i, c in enumerate(ours) if "".join(c["source"]) == CELLS[FD_CELL])
    caught = [{"name": "stdout", "output_type": "stream", "text": ["to the descriptor\n"]},
              {"name": "stderr", "output_type": "stream", "text": ["raw stderr\n"]}] if fds == "caught" else []
    value = {"data": {"text/plain": ["42"]}, "execution_count": 8, "metadata": {}, "output_type": "execute_result"}
    assert ours[descriptors]["outputs"] == caught + [value]
    for index, (a, b) in enumerate(zip(ours, theirs)):
        if index == descriptors:
            a, b = ({**c, "outputs": unordered_streams(c["outputs"])} for c in (a, b))
        assert a == b, index
    assert graded["metadata"]["language_info"] == expected["metadata"]["language_info"]
    assert graded["nbformat"] == expected["nbformat"] and graded["nbformat_minor"] == expected["nbformat_minor"]
    assert result.students[0].error["ename"] == "NameError"
    assert not (out / "ann" / ".run.progress").exists()  # the child's progress file goes with its end


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["finished", "string-boolean"])
def test_the_runbook_graded_in_process_equals_nbclients_run_on_the_same_root(tmp_path, kind):
    """The product's own notebook, on a finished lab and on one with a known mistake."""
    import subprocess
    import sys

    from runbook_lib.evidence.archive import packaged_notebook

    root = str(tmp_path / "class" / "ann")
    how = ["--finished"] if kind == "finished" else ["--mistake", kind]
    subprocess.run([sys.executable, "-m", "runbook_lib.cli", "lab-init", *how, root], check=True,
                   capture_output=True)
    out = tmp_path / "out"
    grade_class([root], out, {}, jobs=1)
    graded = json.loads((out / "ann" / "run.ipynb").read_text(encoding="utf-8"))
    expected = nbclient_run(packaged_notebook(), root, fails=kind != "finished")
    ours = [c for c in comparable(graded) if "papermill-error-cell-tag" not in c["metadata"].get("tags", [])]
    theirs = comparable(expected)
    assert len(ours) == len(theirs) == len(expected["cells"])
    for index, (a, b) in enumerate(zip(ours, theirs)):
        assert a == b, index
    assert graded["metadata"]["language_info"] == expected["metadata"]["language_info"]


@pytest.mark.parametrize("limit", ["memory", "time"])
def test_the_runs_limits_stop_a_cell_in_process_as_in_a_kernel(tmp_path, limit):
    """The validation cell arms the run's limits (engine/limits.py) in the in-process shell as in a kernel: a
    cell beyond one stops with the finding's words (RunStopped), and the child archives the run as it stands."""
    arm = "limits.arm(300, int(limits.rss_mib()) + 100)" if limit == "memory" else "limits.arm(1, 768)"
    beyond = "x = []\nwhile True: x.append(bytearray(1 << 20))" if limit == "memory" else "while True:\n    n = 1"
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": KERNEL, "language": "python"}
    params = nbformat.v4.new_code_cell('root = ""')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell(f"from runbook_lib.engine import limits\nassert {arm}"),
                nbformat.v4.new_code_cell(beyond), nbformat.v4.new_code_cell("print('never runs')")]
    path = tmp_path / "limits.ipynb"
    nbformat.write(nb, str(path))
    root = tmp_path / "class" / "ann"
    root.mkdir(parents=True)
    result = grade_class([str(root)], tmp_path / "out", {}, jobs=1, notebook=path, timeout=60)
    error = result.students[0].error
    assert error["ename"] == "RunStopped"
    words = "stopped: used more than" if limit == "memory" else "stopped: took longer than 1 s"
    assert words in error["evalue"]
