"""The check cells judged on the planned state, by the engine, for every entry point (the notebook, `runbook run`,
`runbook check`, `runbook grade`, `lab-init --finished`): each step's check cell (``Step.check``, the code
tools/build_notebook.py writes into notebooks/run.ipynb) runs on the state the plans would leave, so a run whose
cell would fail after its writes refuses before the first one. What a cell asserts is then what the run was judged
by twice: by the step's verdict, and by the visible assertions themselves, which state the verdict's rules with
the values this run decided (``rb.expected``, engine/expected.py).
"""

from __future__ import annotations

import functools
from contextlib import contextmanager

from runbook_lib.findings.errors import RunbookError
from runbook_lib.findings.problem import Problem
from runbook_lib.steps.expect import Expect


class _Planned:
    """The run as a check cell sees it during the preflight: every read goes through the planned state; the
    cell's `with rb.expect(...)` collects its assertions without judging or showing anything."""

    def __init__(self, rb):
        self._rb = rb
        self.found: dict[str, Expect] = {}

    def __getattr__(self, name):
        return getattr(self._rb, name)

    @contextmanager
    def expect(self, step_id: str, path: str | None = None):
        checks = Expect(self._rb, step_id, path or self._rb.p.config_path)
        self.found[step_id] = checks
        yield checks


def compiled(step) -> object:
    """A step's check cell, compiled once per process for its text (each preflight ran compile() on every cell
    again)."""
    return _compile(step.check, step.id)


@functools.lru_cache(maxsize=64)
def _compile(code: str, step_id: str):
    return compile(code, f"<check cell {step_id}>", "exec")


def judge_planned(rb) -> None:
    """Run the check cell of every step judged in the plan on the planned state; a failed assertion is a refusal
    of that step (its finding says which assertion, what it read, and its fix). Only when the verdicts found
    nothing: their findings say the same mistake better, with its line. The cells show nothing meanwhile."""
    planned = _Planned(rb)
    namespace = {**rb.p.as_dict(), "rb": planned}
    rb.quiet = True
    try:
        for step in rb.steps:
            if not step.check or not step.judged_in_plan:
                continue
            try:
                exec(compiled(step), dict(namespace))  # noqa: S102 - our own cells
            except RunbookError as exc:  # a file the cell reads cannot be read: the step's own finding, said as one
                rb.plans[step.id].refusals.append(Problem.from_error(exc))
                continue
            checks = planned.found.get(step.id)
            if checks is not None:
                rb.plans[step.id].refusals += checks.uncovered(rb.plans[step.id].refusals)
    finally:
        rb.quiet = False

