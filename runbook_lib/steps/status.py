"""How a step's status reads in every view (the JUnit file, results.json / grades.json, the class page, a
student's feedback, the summary across hosts, the notebook's summary table): one row per status, so a new
status is one line here and every view follows.

``outcome`` is what a test report calls it (passed / failed / skipped), ``scored`` whether the step is worth
its point (a skipped step is worth nothing and fails nobody), ``cell`` the across-hosts table's cell, ``state``
the class page's colour key, ``mark`` the one-character sign, ``colour`` the notebook summary's colour.
"""

from __future__ import annotations

from dataclasses import dataclass

from runbook_lib.steps.base import BLOCKED, CHANGED, FAILED, PASSED, SKIPPED, UNCHANGED


@dataclass(frozen=True)
class Outcome:
    outcome: str
    scored: bool
    cell: str
    state: str
    mark: str
    colour: str

    @property
    def passes(self) -> bool:
        return self.outcome == "passed"


OUTCOMES: dict[str, Outcome] = {
    CHANGED: Outcome("passed", True, "changed", "passed", "✓", "#1f6feb"),  # shown: an operator wants to see what a run touched
    UNCHANGED: Outcome("passed", True, "PASS", "passed", "✓", "#57606a"),
    PASSED: Outcome("passed", True, "PASS", "passed", "✓", "#1a7f37"),
    FAILED: Outcome("failed", True, "FAIL", "failed", "✗", "#cf222e"),
    SKIPPED: Outcome("skipped", False, "skip", "skipped", "–", "#9a6700"),
    # an earlier step's failure is the one counted: a blocked step is neither passed nor failed ("fix step N first")
    BLOCKED: Outcome("skipped", False, "blocked", "blocked", "…", "#8c959f"),
}
# a record without a status the runbook knows (an older or damaged record): counted as not passed, shown as such
UNKNOWN = Outcome("failed", True, "?", "missing", "–", "#000000")

PASSING = tuple(s for s, o in OUTCOMES.items() if o.passes)


def outcome(status: str | None) -> Outcome:
    return OUTCOMES.get(status or "", UNKNOWN)
