"""A small class of lab roots, as an instructor gets them back: one student finished the lab, others made one
of the lab's known mistakes each (runbook_lib/lab/mistakes.py), one never started. The browser tests
(tests/real/test_real_browser_views.py) and the screenshots of docs/GRADING.md (tools/grading_screenshots.py)
grade the same class the same way."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# issue 41's class: scored kim 8/8, lee 7/8, park 7/8, yoon 7/8, choi 6/8, jung 0/8 (docs/GRADING.md)
CLASS = {"kim": None, "lee": "string-boolean", "park": "unquoted-header", "yoon": "options-typo",
         "choi": "string-boolean,handler-mismatch", "jung": ""}


def make_class(folder: Path, students: dict[str, str | None] = CLASS) -> list[Path]:
    """One root per student: None is a finished lab, "" an empty folder, else the named mistake."""
    from runbook_lib.lab.init_root import add_mistakes, finished_lab

    roots = []
    for label, mistake in students.items():
        root = folder / label
        if mistake is None:
            finished_lab(str(root))
        elif mistake == "":
            root.mkdir(parents=True, exist_ok=True)
        else:
            add_mistakes(str(root), mistake)
        roots.append(root)
    return roots


def run_class_notebook(folder: Path, out: Path) -> Path:
    """notebooks/class.ipynb over folder/*, as the instructor runs it (GRADING.md): the executed notebook in
    out, beside the grades, and its nbconvert HTML (the JupyterLab look) next to it."""
    out.mkdir(parents=True, exist_ok=True)
    executed = out / "class.ipynb"
    subprocess.run([sys.executable, "-m", "runbook_lib.runner", "--no-progress-bar", "--log-level", "ERROR",
                    str(REPO / "notebooks" / "class.ipynb"), str(executed), "-p", "roots", f"{folder}/*",
                    "-p", "out", str(out)], check=True, timeout=900)
    to_html(executed)
    return executed


def to_html(executed: Path) -> Path:
    """The executed notebook as nbconvert's lab template renders it (JupyterLab's stylesheet)."""
    import nbformat
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter(template_name="lab").from_notebook_node(nbformat.read(str(executed), as_version=4))
    page = executed.with_suffix(".html")
    page.write_text(body, encoding="utf-8")
    return page
