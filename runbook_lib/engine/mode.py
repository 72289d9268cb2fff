"""apply, check and remove: three drivers over one core, the mode chosen once (``Run.__init__``: ``run.mode``).

The core is the same for every mode: every step planned on the state the earlier plans leave, before any write
(``Run.preflight``), and every step judged by the same verdict on the files as they are (``Run.verdict``). A
driver says only what differs, and the rest of the code asks it for that behaviour, never for the mode's name:

- which steps it runs (``steps``: remove takes out what apply added, then asks containerd and restarts);
- whether it writes its plans (``writes``: apply and remove; check writes nothing and says what apply would);
- whether it adds the runtime (``adds``: apply records what it writes, for remove to undo, and holds
  containerd's reading to its promise, before the writes (engine/guard.py) and after them (step 9));
- whether the runtime must be gone after it (``removes``: the check cells' ``rb.expected.removing``);
- how a plan is worded (``plan_label``, ``plans_label``, ``said``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import Msg
from runbook_lib.steps import REMOVE_STEPS, STEPS


@dataclass(frozen=True)
class Mode:
    name: str          # the mode parameter's value: shown (the run's first line, its records), never compared
    steps: tuple = field(repr=False)  # the steps it runs, in order
    writes: bool = True  # its plans are written (folders, files, backups); otherwise said as "apply would ..."
    adds: bool = False  # it adds the runtime: its writes are recorded for remove, containerd is held to the promise
    removes: bool = False  # the runtime must be gone after it, unless the file still has it (a node's own)

    @property
    def plan_label(self) -> str:
        """The catalog code heading a step's plan."""
        return "label.plan" if self.writes else "label.apply_would"

    @property
    def plans_label(self) -> str:
        """The catalog code heading the list of every step's plan."""
        return "label.the_plan" if self.writes else "label.the_plan_check_mode"

    def said(self, message: Msg, *, changes: bool) -> Msg:
        """A step's message before its verdict: a plan that would change something is said as a plan ("apply
        would ..."), never as done, by a mode that writes nothing."""
        return say("run.apply_mode_would", message=message) if changes and not self.writes else message


APPLY = Mode("apply", STEPS, writes=True, adds=True, removes=False)
CHECK = Mode("check", STEPS, writes=False, adds=False, removes=False)
REMOVE = Mode("remove", REMOVE_STEPS, writes=True, adds=False, removes=True)
MODES = {m.name: m for m in (APPLY, CHECK, REMOVE)}


def of(params) -> Mode:
    """The driver of the run's mode parameter (validated: engine/params.py)."""
    return MODES[params.mode]
