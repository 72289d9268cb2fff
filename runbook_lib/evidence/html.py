"""The HTML copy of an executed notebook: one self-contained page, for people without Jupyter.

The executed `.ipynb` stays the evidence; this page is its readable copy. It shows what nbconvert's HTML
shows — every cell in order, its source, its execution count and every output — plus the papermill run
header (parameters, start, end, duration), in a page with no scripts and no external files.

Why not nbconvert: its first export in a process costs ~1.2 s (importing it, then compiling its Jinja
templates, Pygments' lexer and BeautifulSoup's selectors), as much as the rest of `runbook run`, and a helper
process that prepares it in advance pushed a run's memory over its budget (docs/BENCHMARKS.md). This page
takes a few milliseconds. `jupyter nbconvert --to html run.ipynb` still renders an archived notebook the
JupyterLab way at any time; tests/evidence/test_html.py checks that this page keeps every text that
nbconvert's page shows.

Outputs are chosen the way nbconvert chooses them (the first MIME type of `DISPLAY_PRIORITY` that an output
has); HTML and SVG outputs are included as they are, as nbconvert does, since they come from the run itself.
"""

from __future__ import annotations

import functools
import html
import json
import re
from pathlib import Path

from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import bilingual

DISPLAY_PRIORITY = ("text/html", "text/markdown", "image/svg+xml", "image/png", "image/jpeg", "text/latex",
                    "text/plain")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_STYLE = """
body{font-family:system-ui,"Noto Sans KR","Apple SD Gothic Neo","Malgun Gothic",sans-serif;max-width:64rem;
margin:2rem auto;padding:0 1rem;line-height:1.55;color:#1f2328}
pre{background:#f6f8fa;padding:.6rem .8rem;overflow-x:auto;border-radius:4px;margin:.3rem 0;
font:0.85rem/1.45 ui-monospace,"D2Coding",Menlo,Consolas,monospace;white-space:pre-wrap}
.cell{margin:1.2rem 0}.prompt{color:#57606a;font:0.75rem ui-monospace,monospace}
.input{border-left:3px solid #0969da}.output{margin:.3rem 0 .3rem 1rem}
.stderr{background:#fff8c5}.error{background:#ffebe9}.tag{font-size:.7rem;background:#ddf4ff;
border-radius:3px;padding:0 .3rem;margin-left:.4rem}
table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.2rem .5rem;vertical-align:top}
.run{font-size:.85rem;color:#57606a}img{max-width:100%}
"""


def _text(value) -> str:
    """nbformat keeps multi-line strings either as one string or as a list of lines."""
    return "".join(value) if isinstance(value, list) else str(value or "")


def _pre(text: str, cls: str) -> str:
    return f'<pre class="{cls}">{html.escape(_ANSI.sub("", text), quote=False)}</pre>'


@functools.lru_cache(maxsize=256)
def _markdown(source: str) -> str:
    """Cached: a class's notebooks share every narrative cell (~40 ms of mistune per page otherwise)."""
    import mistune

    return mistune.html(source)


def _data(data: dict) -> str:
    for mime in DISPLAY_PRIORITY:
        if mime not in data:
            continue
        value = _text(data[mime])
        if mime in ("text/html", "image/svg+xml"):
            return value
        if mime == "text/markdown":
            return _markdown(value)
        if mime in ("image/png", "image/jpeg"):
            return f'<img alt="output" src="data:{mime};base64,{value.strip()}">'
        return _pre(value, "data")
    if data:  # only types without a text form: show the first as JSON, never drop it silently
        mime, value = next(iter(data.items()))
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1)
        return _pre(f"{mime}\n{shown}", "data")
    return ""


def _output(out: dict) -> str:
    kind = out.get("output_type")
    if kind == "stream":
        body = _pre(_text(out.get("text")), f"stream {out.get('name', 'stdout')}")
    elif kind == "error":
        body = _pre("\n".join(out.get("traceback") or [f"{out.get('ename')}: {out.get('evalue')}"]), "error")
    else:
        body = _data(out.get("data") or {})
        if kind == "execute_result":
            body = f'<div class="prompt">Out[{out.get("execution_count") or " "}]:</div>{body}'
    return f'<div class="output">{body}</div>'


def _cell(cell: dict) -> str:
    kind, source = cell.get("cell_type"), _text(cell.get("source"))
    if kind == "markdown":
        return f'<div class="cell markdown">{_markdown(source)}</div>'
    if kind != "code":
        return f'<div class="cell raw">{_pre(source, "raw")}</div>'
    count = cell.get("execution_count")
    tags = "".join(f'<span class="tag">{html.escape(t)}</span>'
                   for t in (cell.get("metadata") or {}).get("tags") or [])
    outputs = "".join(_output(o) for o in cell.get("outputs") or [])
    return (f'<div class="cell code"><div class="prompt">In [{count if count is not None else " "}]:{tags}</div>'
            f'{_pre(source, "input")}{outputs}</div>')


def _run_header(metadata: dict) -> str:
    pm = metadata.get("papermill") or {}
    if not pm:
        return ""
    rows = [(bilingual(say(code)), pm.get(key)) for code, key in (
        ("html.run.input", "input_path"), ("html.run.start", "start_time"), ("html.run.end", "end_time"),
        ("html.run.duration", "duration"), ("html.run.exception", "exception"))]
    rows += [(f"-p {name}", json.dumps(value, ensure_ascii=False)) for name, value in
             (pm.get("parameters") or {}).items()]
    cells = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>" for k, v in rows)
    return f'<table class="run">{cells}</table>'


PAPERMILL_ERROR_TAG = "papermill-error-cell-tag"


def _papermills_banner(cell: dict) -> bool:
    """The red "An Exception was encountered" cells papermill puts into a failed notebook: in the page they open
    a student's evidence with a banner over what the status box already says (which step, why, the fix), so the
    page leaves them out; run.ipynb keeps them as papermill wrote them."""
    return cell.get("cell_type") == "markdown" and PAPERMILL_ERROR_TAG in ((cell.get("metadata") or {}).get("tags") or [])


def render(nb: dict, title: str = "run.ipynb") -> str:
    """The whole page for an executed notebook (an nbformat v4 dict or NotebookNode)."""
    body = "".join(_cell(c) for c in nb.get("cells") or [] if not _papermills_banner(c))
    return (f'<!DOCTYPE html>\n<html lang="ko">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
            f"{_run_header(nb.get('metadata') or {})}\n{body}\n</body>\n</html>\n")


def write(nb: dict, dest: Path, title: str = "run.ipynb") -> str | None:
    """Write the page; returns an error text instead of raising (the run's verdict does not depend on it)."""
    try:
        from runbook_lib.fs.safe_write import write_file
        write_file(dest, render(nb, title))
        return None
    except Exception as exc:  # noqa: BLE001 - reported in the manifest's html_error
        return f"{type(exc).__name__}: {exc}"
