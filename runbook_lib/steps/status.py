"""How a step's status reads in every view (the JUnit file, results.json / grades.json, the class page, a
student's feedback, the summary across hosts, the notebook's summary table, the terminal): one row per status,
so a new status is one line here and every view follows. The marks, the colours and the verdict words are
defined here; the views read them from this table (but step 9's table in containerd/ask.py, below the steps, which
spells its own ✓ and ✗, and the notebook's modules still being converted, issue 38).

``outcome`` is what a test report calls it (passed / failed / skipped), ``scored`` whether the step is worth
its points (a skipped step does not apply: it is worth nothing and fails nobody), ``cell`` the across-hosts table's cell, ``state``
the class page's key (the row that shows the status there, see ``look``), ``mark`` the one-character sign,
``colour`` its colour (the notebook summary's word, the class page's square, the feedback page), ``word`` the
catalog code of what a person reads for it ("통과 / passed").

A plan is marked by the status it would give: ``~`` it changes a file (changed), ``=`` it changes nothing
(unchanged), ``✗`` it refuses (failed).
"""

from __future__ import annotations

from dataclasses import dataclass

from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import Msg
from runbook_lib.steps.base import BLOCKED, CHANGED, FAILED, PASSED, RESTART_NEEDED, SKIPPED, UNCHANGED


@dataclass(frozen=True)
class Outcome:
    outcome: str
    scored: bool
    cell: str
    state: str
    mark: str
    colour: str
    word: str

    @property
    def passes(self) -> bool:
        return self.outcome == "passed"

    @property
    def said(self) -> Msg:
        """Its words, from the catalog ("통과 / passed" once joined)."""
        return say(self.word)


MISSING = "missing"  # the class page's state of a step without a record, or with a status the runbook does not know

OUTCOMES: dict[str, Outcome] = {
    # changed is shown: an operator wants to see what a run touched; on the class page it is a pass like any other
    CHANGED: Outcome("passed", True, "changed", PASSED, "~", "#1f6feb", "status.word.passed"),
    UNCHANGED: Outcome("passed", True, "PASS", PASSED, "=", "#57606a", "status.word.passed"),
    PASSED: Outcome("passed", True, "PASS", PASSED, "✓", "#1a7f37", "status.word.passed"),
    FAILED: Outcome("failed", True, "FAIL", FAILED, "✗", "#cf222e", "status.word.failed"),
    SKIPPED: Outcome("skipped", False, "skip", SKIPPED, "–", "#9a6700", "status.word.skipped"),
    # an earlier step's failure is its cause: neither passed nor failed ("fix step N first"), yet worth its points,
    # 0 until the earlier fix is made (runbook_lib/grading/score.py: every student out of the same total)
    BLOCKED: Outcome("skipped", True, "blocked", BLOCKED, "…", "#8c959f", "status.word.blocked"),
    # the config is written, containerd reads it after a restart the run did not do: not a pass (yet), no failure
    RESTART_NEEDED: Outcome("skipped", False, "restart", SKIPPED, "↻", "#bc4c00", "status.word.restart_needed"),
}
# a record without a status the runbook knows (an older or damaged record): counted as not passed, shown as such
# (its own mark and colour: never the grey of blocked, nor the dash of skipped, so the legend tells them apart)
UNKNOWN = Outcome("failed", True, "?", MISSING, "?", "#8250df", "status.word.missing")

PASSING = tuple(s for s, o in OUTCOMES.items() if o.passes)
# The class page's states, in its legend's order.
STATES = (PASSED, FAILED, BLOCKED, SKIPPED, MISSING)


def outcome(status: str | None) -> Outcome:
    return OUTCOMES.get(status or "", UNKNOWN)


def look(state: str) -> Outcome:
    """How a class page's state is shown: as the status of its name (passed, failed, ...), missing as UNKNOWN."""
    return OUTCOMES.get(state, UNKNOWN)


def verdict(ok: bool) -> Msg:
    """The verdict on a whole run, a student or a host: passed or failed, in the words of those statuses."""
    return outcome(PASSED if ok else FAILED).said
