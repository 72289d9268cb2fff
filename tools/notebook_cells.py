"""What the notebook builders share: a notebook from its cells, with the kernel named and stable cell ids (so
that rebuilding gives the same bytes and the hygiene tests can compare), and its text."""

from __future__ import annotations

import nbformat
from nbformat.v4 import new_notebook


def notebook(cells: list, id_prefix: str) -> nbformat.NotebookNode:
    nb = new_notebook(cells=cells)
    # ipykernel's stock kernel (`python -m ipykernel install --sys-prefix --name python3`, as make does)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"{id_prefix}-{i:02d}"
    return nb


def text(nb: nbformat.NotebookNode) -> str:
    return nbformat.writes(nb) + "\n"
