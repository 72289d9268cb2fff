"""What stops a cell and shows findings instead of a traceback (papermill then exits non-zero)."""

from __future__ import annotations

class Feedback(Exception):
    """Stops a cell (so papermill exits non-zero) and shows the findings, not a Python traceback: IPython
    renders an exception that has _render_traceback_ with those lines instead of the traceback."""

    def __init__(self, summary: str, text: str):
        super().__init__(summary)
        self.text = text

    def _render_traceback_(self) -> list[str]:
        return self.text.split("\n")


class StepFailed(Feedback):
    """A step's verdict failed (apply mode: at its check cell; check mode: at the last cell)."""


class Refused(Feedback):
    """The plan refused: an apply run stops before its first write."""



class OutOfOrder(Feedback):
    """A cell run before the write cell of its own or an earlier step (JupyterLab): nothing is written or judged,
    and the run is not stopped."""
