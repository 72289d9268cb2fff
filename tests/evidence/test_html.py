"""The archived HTML page (runbook_lib/evidence/html.py): every cell and output, escaped, and nothing that
nbconvert's own HTML of the same notebook shows is missing from it."""

from __future__ import annotations

import base64
import re
from html.parser import HTMLParser

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

from helpers import run_notebook
from runbook_lib.engine.result import read_record
from runbook_lib.evidence import html as notebook_html

VOID = {"meta", "br", "img", "hr", "input", "link", "col", "area", "base", "wbr", "source"}


class Page(HTMLParser):
    """Visible text (no <style>/<script>) and a check that every opened element is closed in order."""

    def __init__(self, page: str):
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.stack: list[str] = []
        self.unbalanced: list[str] = []
        self._hidden = 0
        self.feed(page)
        self.close()

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script", "title"):
            self._hidden += 1
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in ("style", "script", "title"):
            self._hidden -= 1
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.unbalanced.append(tag)
        else:
            self.stack.pop()

    def handle_data(self, data):
        if not self._hidden:
            self.text.append(data)

    def words(self) -> str:
        return " ".join(" ".join(self.text).split())

    def compact(self) -> str:
        """The visible characters in order, without whitespace (highlighting splits text into spans)."""
        return "".join("".join(self.text).split())


def is_subsequence(needle: str, haystack: str) -> int:
    """-1 when every character of needle appears in haystack in order, else how far needle got."""
    it = iter(haystack)
    for i, ch in enumerate(needle):
        if ch not in it:
            return i
    return -1


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """The real runbook, executed on a fresh lab root."""
    tmp = tmp_path_factory.mktemp("html")
    (tmp / "root").mkdir()
    run_notebook(tmp / "root", tmp / "out.ipynb")
    return nbformat.read(str(tmp / "out.ipynb"), as_version=4)


def test_the_page_of_a_real_run_is_well_formed_and_shows_every_step(executed):
    page = Page(notebook_html.render(executed))
    assert page.unbalanced == [] and page.stack == []
    text = page.words()
    for step in (rec for cell in executed.cells for out in cell.get("outputs", [])
                 for rec in [read_record(out.get("data", {}).get("application/vnd.runbook.step+json"))] if rec):
        assert step["title"]["ko"] in text and step["title"]["en"] in text  # every step's record
    assert "-p root" in text and "걸린 시간(초) / duration (s)" in text  # papermill's run header, both languages


def test_nothing_nbconvert_shows_is_missing_from_the_page(executed):
    """Cross-check with the reference renderer: all the text nbconvert's page shows is in ours, in the same
    order (ours only adds the papermill run header)."""
    from nbconvert import HTMLExporter

    theirs = Page(HTMLExporter().from_notebook_node(executed)[0]).compact().replace("¶", "")
    ours = Page(notebook_html.render(executed)).compact()
    stopped = is_subsequence(theirs, ours)
    assert stopped == -1, f"not in our page, in this order: ...{theirs[max(0, stopped - 40):stopped + 40]}..."


def test_code_and_text_outputs_are_escaped_and_ansi_colours_removed():
    nb = new_notebook(cells=[new_code_cell("print('</pre><script>alert(1)</script>')", execution_count=3, outputs=[
        new_output("stream", name="stderr", text="<b>not bold</b>\n"),
        new_output("error", ename="ValueError", evalue="x",
                   traceback=["\x1b[0;31mValueError\x1b[0m: a < b"])])])
    page = notebook_html.render(nb)
    assert "<script>" not in page and "&lt;/pre&gt;&lt;script&gt;" in page
    assert "&lt;b&gt;not bold&lt;/b&gt;" in page and 'class="stream stderr"' in page
    assert "\x1b" not in page and "ValueError: a &lt; b" in page and "In [3]:" in page


def test_outputs_are_chosen_like_nbconverts_and_none_is_dropped():
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()
    nb = new_notebook(cells=[new_code_cell("x", outputs=[
        new_output("display_data", data={"text/html": "<div class='step'>단계</div>", "text/plain": "plain"}),
        new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"}),
        new_output("execute_result", data={"text/markdown": "**굵게**", "text/plain": "md"}, execution_count=1),
        new_output("display_data", data={"application/vnd.example+json": {"k": "값"}}),
    ])])
    page = notebook_html.render(nb)
    assert "<div class='step'>단계</div>" in page and "plain" not in page  # HTML wins over text, as in nbconvert
    assert f'src="data:image/png;base64,{png}"' in page and "&lt;Figure&gt;" not in page
    assert "<strong>굵게</strong>" in page
    assert "application/vnd.example+json" in page and "값" in page  # no text form: shown as JSON, not dropped


def test_markdown_raw_and_tags_are_rendered():
    nb = new_notebook(cells=[new_markdown_cell("## 1단계 / Step 1\n\n| a | b |\n|---|---|\n| 1 | 2 |"),
                             new_raw_cell("raw <text>"),
                             new_code_cell("root = '/'", metadata={"tags": ["injected-parameters"]})])
    page = notebook_html.render(nb)
    assert re.search(r"<h2[^>]*>1단계 / Step 1</h2>", page) and "<table>" in page
    assert "raw &lt;text&gt;" in page and '<span class="tag">injected-parameters</span>' in page


def test_a_failed_write_is_reported_not_raised(tmp_path):
    error = notebook_html.write(new_notebook(), tmp_path / "missing-folder" / "run.html")
    assert error and error.startswith("FileNotFoundError")


def test_papermills_exception_banner_is_not_in_the_evidence_page():
    """Issue 41: a failing student's run.html opened with papermill's red "An Exception was encountered" over
    the status box that already says which step failed and how to fix it. run.ipynb keeps papermill's cells."""
    banner = new_markdown_cell('<span style="color:red">An Exception was encountered at '
                               '<a href="#papermill-error-cell">In [25]</a>.</span>',
                               metadata={"tags": ["papermill-error-cell-tag"]})
    marker = new_markdown_cell('<span id="papermill-error-cell">Execution using papermill encountered an exception '
                               'here and stopped:</span>', metadata={"tags": ["papermill-error-cell-tag"]})
    nb = new_notebook(cells=[banner, new_markdown_cell("## 3단계 / Step 3"), marker, new_code_cell("x")])
    page = notebook_html.render(nb)
    assert "An Exception was encountered" not in page and "papermill encountered an exception" not in page
    assert re.search(r"<h2[^>]*>3단계 / Step 3</h2>", page) and "In [" in page
