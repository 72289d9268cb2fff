"""The HTML copy of a run (runbook_lib/html_export.py): a warmed-up helper process, same bytes as nbconvert."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import nbformat
from nbconvert import HTMLExporter
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from runbook_lib.html_export import Helper, render


def sample(path):
    """A notebook like an executed runbook: Korean markdown, code, HTML and stream outputs, an error."""
    nb = new_notebook(cells=[
        new_markdown_cell("## 1단계 / Step 1\n\n설정을 **복사**합니다. / Copy the *config*."),
        new_code_cell("nb.step(rb, 1)", execution_count=1, outputs=[
            new_output("display_data", data={"text/html": "<div class='rb'>복사함 / copied</div>",
                                             "text/plain": "copied"}),
            new_output("stream", name="stdout", text="etc/containerd/config.toml\n")]),
        new_code_cell("1/0", execution_count=2, outputs=[
            new_output("error", ename="ZeroDivisionError", evalue="division by zero",
                       traceback=["\x1b[0;31mZeroDivisionError\x1b[0m: division by zero"])]),
    ])
    nb.metadata["language_info"] = {"name": "python", "pygments_lexer": "ipython3"}
    nbformat.write(nb, str(path))
    return nbformat.read(str(path), as_version=4)


def test_the_helper_writes_exactly_what_a_fresh_nbconvert_writes(tmp_path):
    nb = sample(tmp_path / "run.ipynb")
    helper = Helper()
    assert helper.export(nb, tmp_path / "run.ipynb", tmp_path / "run.html") is None
    expected, _ = HTMLExporter().from_notebook_node(nb)
    assert (tmp_path / "run.html").read_text(encoding="utf-8") == expected
    assert "1단계 / Step 1" in expected


def test_a_dead_helper_falls_back_to_this_process(tmp_path):
    nb = sample(tmp_path / "run.ipynb")
    helper = Helper()
    helper.process.kill()
    helper.process.wait()
    assert helper.export(nb, tmp_path / "run.ipynb", tmp_path / "run.html") is None
    assert (tmp_path / "run.html").read_text(encoding="utf-8") == HTMLExporter().from_notebook_node(nb)[0]


def test_a_helper_that_cannot_read_the_notebook_reports_it_instead_of_raising(tmp_path):
    nb = sample(tmp_path / "run.ipynb")
    error = Helper().export(nb, tmp_path / "missing.ipynb", tmp_path / "run.html")
    assert error and "missing.ipynb" in error and not (tmp_path / "run.html").exists()


def test_the_in_process_export_reports_errors_as_text(tmp_path):
    nb = sample(tmp_path / "run.ipynb")
    error = render(nb, tmp_path / "no-such-folder" / "run.html")
    assert error and error.startswith("FileNotFoundError")


def test_an_unused_helper_does_not_outlive_the_command():
    code = ("from runbook_lib.html_export import Helper\n"
            "h = Helper()\n"
            "print(h.process.pid)\n")
    pid = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    # Stopped by the command on its way out, not by finishing its ~1 s warm-up and finding stdin closed.
    deadline = time.monotonic() + 0.3
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.02)
    raise AssertionError(f"the HTML helper {pid} is still running after its command exited")
