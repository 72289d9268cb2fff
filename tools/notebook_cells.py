"""What the notebook builders share: a notebook from its cells, with the kernel named and stable cell ids (so
that rebuilding gives the same bytes and the hygiene tests can compare), and its text."""

from __future__ import annotations

import nbformat
from nbformat.v4 import new_notebook


def notebook(cells: list, id_prefix: str) -> nbformat.NotebookNode:
    nb = new_notebook(cells=cells)
    # runbook_lib/kernel/app.py: the stock IPython kernel without its debugger, which papermill waits less for
    nb.metadata["kernelspec"] = {"name": "nvidia-runbook", "display_name": "Python 3 (runbook)", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"{id_prefix}-{i:02d}"
    return nb


def text(nb: nbformat.NotebookNode) -> str:
    return nbformat.writes(nb) + "\n"
