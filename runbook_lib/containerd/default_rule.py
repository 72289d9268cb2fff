"""The rule for containerd's default runtime after a run, decided once per run and read by everything that judges
it: step 4's verdict (diagnose.default_problem), step 4's and step 9's check cells (Expect.default_runtime) and
step 9's comparison with containerd's own reading (ask.compare).

Two rules, one per world:
- the lab's: the default is not the runtime the run adds (GPU pods opt in through a RuntimeClass);
- a node's (``default_runtime keep``, or ``auto`` on ``/``): the node's default is the node's, whatever it names
  (a DGX node, an EKS GPU AMI or ``nvidia-ctk --set-as-default`` already run nvidia as their default).
In both, the default must name a runtime containerd has: else its CRI plugin does not start.
"""

from __future__ import annotations

from dataclasses import dataclass

from runbook_lib.containerd.tables import get_in
from runbook_lib.containerd.versions import containerd_table, of, runtimes_path
from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import Msg

BUILTIN = "runc"  # containerd's default when default_runtime_name is unset, and the runtime it has built in


@dataclass(frozen=True)
class DefaultRule:
    runtime: str                    # the runtime the run adds (the lab's rule keeps the default off it)
    keeps: bool                     # the node's default is kept, whatever it names
    node_default: str | None = None  # what the node's default was when the run decided (said, never required)

    @classmethod
    def of(cls, p, node_default: str | None = None) -> "DefaultRule":
        return cls(p.runtime_name, bool(getattr(p, "keeps_default", False)), node_default)

    def allows(self, default: str) -> bool:
        """The name alone, by the run's rule."""
        return self.keeps or default != self.runtime

    def holds(self, data: dict, version: int | None) -> bool:
        """The rule on a config as read (tomllib's dict, or containerd's own dump): default_runtime_name is a
        string (or unset: runc), allowed by the rule, and names a runtime of the config."""
        if version is None:
            return False
        node = get_in(data, containerd_table(version))
        raw = node.get("default_runtime_name") if isinstance(node, dict) else None
        if raw is not None and not isinstance(raw, str):
            return False  # true, 1, a date: containerd's decoder refuses the CRI plugin's config
        legacy = node.get("default_runtime") if isinstance(node, dict) else None
        if legacy is not None and not isinstance(legacy, dict) and of(version).legacy_default_runtime:
            return False  # version 1/2's deprecated default runtime *table*, written as a string
        default = raw or BUILTIN
        return self.allows(default) and names_a_runtime(data, version, default)

    def said(self) -> Msg:
        """The rule as a check cell states it, with the values this run decided."""
        if self.keeps:
            return say("default_rule.node", default=self.node_default or BUILTIN)
        return say("default_rule.lab", runtime=self.runtime)


def names_a_runtime(data: dict, version: int, default: str) -> bool:
    """default_runtime_name names a runtime containerd has: a table of that name; containerd's built-in runc (a
    config with no runtimes, or 2.x, which keeps it beside the others key by key); or, in versions 1/2, the
    deprecated ``default_runtime`` table with a type, which 1.x reads as the runtime "default"."""
    runtimes = get_in(data, runtimes_path(version))
    runtimes = runtimes if isinstance(runtimes, dict) else {}
    legacy = get_in(data, containerd_table(version) + ("default_runtime",))
    builtin = default == BUILTIN and (not runtimes or of(version).keeps_builtin_runc)
    return default in runtimes or builtin or (isinstance(legacy, dict) and bool(legacy.get("runtime_type")))
