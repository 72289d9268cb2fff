"""One step's verdict on a student's root, on its own: `rb.check_step("runtime")` in the student edition
(notebooks/lab.ipynb, runbook_lib/lab/student.py) and `runbook check --step N ROOT` (runbook_lib/cli/check.py).

It is the full grading's check mode, cut short: the parameters validated the same way, every step planned
(nothing is written), then the verdicts of the steps up to the asked one, in order, by `Run.verdict`. The
earlier steps are judged too (and not shown) so that a finding that only follows from an earlier failure is
named as the grading names it ("blocked by step 2"), in the same words: a student who sees a step pass here
sees it pass in `runbook grade`.
"""

from __future__ import annotations

import json

from runbook_lib.findings.errors import RunbookError
from runbook_lib.engine.result import StepResult


def step_named(which, steps) -> object:
    """The step a student names: its id ("runtime") or its number (3, "3"); any other name is a finding that
    lists the steps there are."""
    for s in steps:
        if which == s.ID or str(which).strip() == str(s.NUMBER):
            return s
    shown = json.dumps(which, ensure_ascii=False) if isinstance(which, str) else str(which)
    names = ", ".join(f"{s.NUMBER} {s.ID}" for s in steps if isinstance(s.NUMBER, int))
    # a RunbookError: `runbook check` refuses with its words (exit 2), a cell shows them without a traceback
    raise RunbookError.of("lab.unknown_step", step=shown, steps=names)


def check_step(params: dict, which) -> StepResult:
    """The verdict of one step on params' root, in check mode (nothing is written under the root)."""
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run

    run = Run(validate(**{**params, "mode": "check"}))
    step = step_named(which, run.steps)
    run.start()
    try:
        run.preflight()
        for s in run.steps:
            result = run.verdict(s)
            if s is step:
                return result
    finally:
        run.finish()
    raise AssertionError("unreachable: the step is one of run.steps")  # pragma: no cover
