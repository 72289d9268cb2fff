"""What the student edition's cells call (notebooks/lab.ipynb, built by tools/build_notebook.py from the same
steps as run.ipynb). The student does every step by hand; the runbook only checks, and writes nothing:

    rb = student.start(root=root)   # the student's root, prepared by `runbook lab-init ROOT`
    rb.path("/etc/containerd")      # where a lab path is on this machine (under the root)
    rb.check_step("runtime")        # that step's verdict alone, as `runbook grade` would give it

A failed check stops its cell with the findings and their fixes (no traceback), like nbgrader's "validate".
"""

from __future__ import annotations

import html
import os

from runbook_lib.lab.check_step import check_step, step_named
from runbook_lib.findings.problem import Problem
from runbook_lib.findings.text import lines as finding_lines
from runbook_lib.lab.init_root import FIXTURE
from runbook_lib.engine.params import refuse_unknown
from runbook_lib.notebook import StepFailed, _display, parameters_refused_on_terminal
from runbook_lib.notebook.session import injected_names
from runbook_lib.engine.result import BLOCKED, FAILED, STEP_MIME, StepResult, record_text
from runbook_lib.steps.status import outcome

FAILED_MARK = outcome(FAILED).mark + " "  # before a finding that stops the student's cell (steps/status.py)

LAB_STEPS = ("prepare", "runtime", "options", "default", "parse", "cdi", "runtimeclass", "report")  # the lab's eight


class Lab:
    """The student's root and the step checks on it; every check reads the disk afresh."""

    def __init__(self, params: dict):
        from runbook_lib.engine.params import validate
        from runbook_lib.fs.target import Target

        self.params = dict(params)
        self.p = validate(**{**self.params, "mode": "check"})
        self.root = self.p.root
        self._target = Target(self.root)

    def path(self, lab_path: str) -> str:
        """The file on this machine a lab path names: `rb.path("/etc/containerd/config.toml")`."""
        return str(self._target.resolve(lab_path))

    def check_step(self, which) -> "StepCard":
        """The step's verdict alone, as its card (findings and fixes); a failed step stops the cell. A passing
        card is the cell's value, which Jupyter shows once as the card (never a Python repr)."""
        from runbook_lib.steps import STEPS
        step = step_named(which, [s for s in STEPS if s.ID in LAB_STEPS])
        card = StepCard(check_step(self.params, step.ID))
        if card.result.status in (FAILED, BLOCKED):  # blocked: it cannot pass until an earlier step is fixed
            _display(card._repr_mimebundle_())  # raised, the cell has no value: the card is shown first
            raise StepFailed(f"step {card.result.step} failed", _next(card.result))
        return card


class StepCard:
    """One step's verdict as a check cell shows it: the card as HTML and as text, and its record for tools
    that read the notebook; ``result`` is the StepResult for code that wants the verdict itself."""

    def __init__(self, result: StepResult):
        self.result = result

    @property
    def status(self) -> str:
        return self.result.status

    def text(self) -> str:
        return self.result.text()

    def __repr__(self) -> str:  # a terminal, or a frontend that shows only text/plain
        return self.text()

    def _repr_html_(self) -> str:
        return f"<pre style='text-align:left'>{html.escape(self.text())}</pre>"

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return {STEP_MIME: record_text(self.result.as_record()), "text/plain": self.text(),
                "text/html": self._repr_html_()}


def _next(result: StepResult) -> str:
    p = Problem.of("lab.step_failed", step=result.step)
    return "\n".join(finding_lines(p, FAILED_MARK))


LAB_PARAMETERS = ("root",)  # the student edition's parameters cell (tools/lab_tasks.py: PARAMS)


def start(**params) -> Lab:
    """The student edition's first cell: the root checked (not created), and what to do next. A name papermill
    was given that is no parameter of the student edition (`-p rot ...`) stops it first, as in run.ipynb."""
    with parameters_refused_on_terminal():
        refuse_unknown(injected_names(), LAB_PARAMETERS)
    root = params.get("root") or ""
    if not root:
        raise StepFailed("root is empty", "\n".join(finding_lines(Problem.of("lab.root_empty"), FAILED_MARK)))
    rb = Lab(params)
    if not os.path.isfile(rb.path(FIXTURE)):
        raise StepFailed("no lab fixture", "\n".join(finding_lines(
            Problem.of("lab.no_fixture", root=rb.root, fixture=FIXTURE), FAILED_MARK)))
    p = Problem.of("lab.started", root=rb.root)
    _display({"text/plain": "\n".join(finding_lines(p))})
    return rb


__all__ = ["start", "Lab", "StepCard", "LAB_STEPS"]
