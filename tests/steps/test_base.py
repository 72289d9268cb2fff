"""A step is blocked by an earlier one only when every error it has follows from that step's failure
(runbook_lib/steps/base.py, `blocked_by`; the engine's `judge`): no error, or one error of its own beside a
blocking one, is never "blocked". In process, for `make mutate`."""

from __future__ import annotations

from runbook_lib.findings.problem import WARNING, Problem
from runbook_lib.steps.base import blocked_by

FILE = "/root/toolkit/default.txt"


def _blocking(step: int) -> Problem:
    return Problem.of("file.after_earlier_step", FILE, step=step, file=FILE, expected="DEFAULT=runc")


def _own_error() -> Problem:
    # an error of its own that also names the earlier step that failed: still the step's own mistake
    return Problem.of("file.missing", FILE, file=FILE, expected="DEFAULT=runc", step=3)


def _warning() -> Problem:
    p = _own_error()
    p.severity = WARNING
    return p


def test_only_blocking_errors_block():
    assert blocked_by([_blocking(3)]) == 3
    assert blocked_by([_blocking(3), _warning()]) == 3  # a warning beside it changes nothing


def test_no_error_or_an_error_of_its_own_is_not_blocked():
    assert blocked_by([]) is None
    assert blocked_by([_warning()]) is None
    assert blocked_by([_own_error()]) is None
    assert blocked_by([_own_error(), _blocking(3)]) is None
    assert blocked_by([_blocking(3), _own_error()]) is None
