"""The one plan shape: what a change would write, create, retire and refuse, computed in memory before any
write. Every planner returns it: a step's (runbook_lib/steps/), and the domain planners a step calls (the
drop-in, a distribution's route, the removal: runbook_lib/containerd/). It sits here, below them all, so the
domains can build it without importing the steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runbook_lib.findings.messages import Msg
from runbook_lib.findings.problem import Problem
from runbook_lib.fs.safe_write import WritePlan


def _no_message() -> Msg:
    return Msg.join("", [])  # no sentence (yet): not a message of the catalog


@dataclass
class Plan:
    """What a change would do and why. ``changed`` and ``diff`` are the one place either is computed."""
    message: Msg = field(default_factory=_no_message)
    writes: list[WritePlan] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)           # folders to create, parents first
    refusals: list[Problem] = field(default_factory=list)   # any refusal stops an apply run before its first write
    notes: list[Msg] = field(default_factory=list)
    subject: str | None = None                               # what the step is about, e.g. the runtime's table path
    retire: list[str] = field(default_factory=list)          # files to move to a backup (mode=remove)
    retired: list[WritePlan] = field(default_factory=list)   # the retired files' old bytes, for the diff only
    # a domain planner names the folder its writes go in; the step plans which of its parents are missing on
    # the state the earlier steps leave (Run.missing_dirs) and puts those in ``dirs``
    folder: str | None = None
    kept: list[Msg] = field(default_factory=list)            # what was found but is not the runbook's: left alone
    # check mode: the plan's only changes are another step's repairs (step 2's write of step 3's options): planned
    # for the state the later steps judge, but neither said nor shown here (that step says it)
    others_repair: bool = False
    # the node profile's answer files: planned as the lab's are, never written; their bytes are the run's evidence
    evidence: list[WritePlan] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.dirs) or bool(self.retire) or any(w.changed for w in self.writes)

    @property
    def diff(self) -> str:
        return "".join(text for _, text in self.diffs())

    def diffs(self) -> list[tuple[str, str]]:
        """(lab path, unified diff) of every file the plan changes, then of every file it retires. Computed once
        for the bytes the plan holds (a plan is shown, as text and as HTML, and committed: difflib each time
        was ~0.3 ms a file), again if a write's bytes are replaced."""
        if self.others_repair:
            return []
        files = [w for w in self.writes if w.changed] + list(self.retired)
        held = self.__dict__.get("_diffs")
        if held is not None and len(held[0]) == len(files) and all(
                w is hw and w.old is o and w.new is n for w, (hw, o, n) in zip(files, held[0])):
            return held[1]
        out = [(w.lab_path, w.diff()) for w in self.writes if w.changed]
        out += [(w.lab_path, w.diff().replace(f"+++ b{w.lab_path}", "+++ /dev/null")) for w in self.retired]
        self.__dict__["_diffs"] = ([(w, w.old, w.new) for w in files], out)
        return out

    def new(self, lab_path: str) -> bytes | None:
        return next((w.new for w in self.writes + self.evidence if w.lab_path == lab_path), None)
