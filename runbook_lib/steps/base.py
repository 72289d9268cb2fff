"""The contract between the engine and the steps: the one plan shape every planner returns, and the statuses
a step's result can have.

A step module declares ``NUMBER``, ``ID``, ``TITLE``, ``plan(run) -> Plan`` and ``verdict(run) ->
list[Problem]``; runbook_lib/steps/__init__.py lists them in order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runbook_lib.findings.messages import Msg
from runbook_lib.findings.problem import Problem
from runbook_lib.fs.safe_write import WritePlan

CHANGED, UNCHANGED, PASSED, FAILED, SKIPPED = "changed", "unchanged", "passed", "failed", "skipped"


@dataclass
class Plan:
    """What a step would change and why, computed in memory."""
    message: Msg
    writes: list[WritePlan] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)           # folders to create, parents first
    refusals: list[Problem] = field(default_factory=list)   # any refusal stops an apply run before its first write
    notes: list[Msg] = field(default_factory=list)
    subject: str | None = None                               # what the step is about, e.g. the runtime's table path
    retire: list[str] = field(default_factory=list)          # files to move to a backup (mode=remove)

    @property
    def changed(self) -> bool:
        return bool(self.dirs) or bool(self.retire) or any(w.changed for w in self.writes)

    @property
    def diff(self) -> str:
        out = [w.diff() for w in self.writes if w.changed]
        for w in self.retired:
            out.append(w.diff().replace(f"+++ b{w.lab_path}", "+++ /dev/null"))
        return "".join(out)

    retired: list[WritePlan] = field(default_factory=list)   # the retired files' old bytes, for the diff only

    def new(self, lab_path: str) -> bytes | None:
        return next((w.new for w in self.writes if w.lab_path == lab_path), None)
