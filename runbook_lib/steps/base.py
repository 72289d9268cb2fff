"""The contract between the engine and the steps: the statuses a step's result can have, and the
``Step`` every step module declares (every hook named, none probed for).

A step module ends with ``STEP = Step(...)``; runbook_lib/steps/__init__.py lists them in order. A step is keyed
by its ``id`` (its module's name) everywhere: plans, results, the notebook's cells; its ``number`` is the lab's,
for display only. Its plan is the one plan shape, ``Plan`` of runbook_lib/fs/plan.py (below the domains, which
build it too), imported from there by every module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from runbook_lib.findings.messages import Msg
from runbook_lib.findings.problem import Problem
from runbook_lib.steps.lines import EXACT, Rule

CHANGED, UNCHANGED, PASSED, FAILED, SKIPPED = "changed", "unchanged", "passed", "failed", "skipped"
# A step whose findings only follow from an earlier step's failure: scored as neither pass nor fail, shown as
# "fix step N first" (the catalog's status.blocked). Its result's problems hold the one finding that says so.
BLOCKED = "blocked"
# containerd reads the new config only once it restarts, and the run did not restart it (not asked to, or a
# distribution that regenerates its file at start): neither passed nor failed, said as such ("restart needed")
RESTART_NEEDED = "restart-needed"
STATUSES = (CHANGED, UNCHANGED, PASSED, FAILED, SKIPPED, BLOCKED, RESTART_NEEDED)
# The findings that say what containerd reads now is the config before a restart that is still to come: a step
# whose only findings beside warnings are these is "restart needed", never passed.
RESTART_CODES = frozenset({"containerd.reads.not_regenerated"})

# The findings that say "an earlier step failed, so this cannot be judged": a step whose only errors are these
# is blocked, not failed, and the class page does not count them as mistakes of their own.
BLOCKING_CODES = frozenset({"depends.earlier", "depends.runtime_table", "file.after_earlier_step",
                            "file.after_earlier_step.no_lines", "node.fact.after_earlier_step"})


# One root cause said by two steps in their own words: the later finding is the earlier one's, named again
# (Run._refer_to_earlier), so a student who did nothing is not counted the missing config twice (issue 41).
SAME_CAUSE = {"config.unreadable.config_file_does_not": "prepare.config_missing"}


def is_blocking(problem: Problem) -> bool:
    return problem.code in BLOCKING_CODES


def blocked_by(problems: list[Problem]) -> int | str | None:
    """The earlier step that blocks a step with these findings (every error is a blocking one), or None."""
    errors = [p for p in problems if p.is_error]
    if errors and all(is_blocking(p) for p in errors):
        return errors[0].values.get("step")
    return None


def _none(run) -> None:
    return None


def _nothing(run) -> dict:
    return {}


def _no_act(run, result) -> None:
    return None


@dataclass(frozen=True)
class Step:
    """Every hook a step may have; the ones a step does not give have the default said here."""
    number: int | str                          # the lab's number, for display ("restart" and "remove" have none)
    id: str                                    # the one key: plans, results, cells (its module's name)
    title: Msg
    plan: Callable                             # (run) -> Plan: what would change and why, in memory
    verdict: Callable                          # (run) -> list[Problem]: read back, the same in apply and check
    evidence: Callable = _nothing              # (run) -> {lab path: text} a person should see read back
    skipped: Callable = _none                  # (run) -> Msg | None: why the step cannot run here
    message: Callable = _none                  # (run) -> Msg | None: what the step learnt, said over its plan's
    act: Callable = _no_act                    # (run, result): a step that acts on the node (the restart)
    writes: bool = True                        # False: it only asks, so its status is its verdict
    judged_in_plan: bool = True                # False: it asks a program or acts on the node (after the writes)
    depends: tuple[str, ...] = ()              # the steps whose failure blocks it (a derived file's inputs)
    rule: Rule = EXACT                         # how its toolkit file is compared, by verdict and cell alike
    check: str = ""                            # its check cell's code: the notebook shows it, the plan judges it
    # (run) -> text: its answer file's content as the files hold it now (a node gets no answer file: this is the
    # fact read from the node's files after the run, its evidence and what its verdict judges, never the plan's)
    fact: Callable | None = None

    # the names the cells and the records have always shown
    @property
    def NUMBER(self) -> int | str:  # noqa: N802 - kept for the notebook's and the tests' readers
        return self.number

    @property
    def ID(self) -> str:  # noqa: N802
        return self.id

    @property
    def TITLE(self) -> Msg:  # noqa: N802
        return self.title
