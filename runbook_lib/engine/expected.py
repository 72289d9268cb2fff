"""What this run decided the files and containerd must hold, decided once (``decide``, at the start of the plan)
and read by the verdicts and the check cells alike: a check cell's assertion names ``rb.expected``'s values, never
a literal of its own, so that the cell shows the rule the run is judged by.
"""

from __future__ import annotations

from dataclasses import dataclass

from runbook_lib.containerd.default_rule import DefaultRule
from runbook_lib.containerd.edit import default_runtime_name
from runbook_lib.containerd.versions import RUNTIME_TYPE, runtime_table
from runbook_lib.cdi.spec import KIND as CDI_KIND
from runbook_lib.steps.cdi import judged_spec
from runbook_lib.steps.runtime import foreign_problem
from runbook_lib.findings.errors import RunbookError


@dataclass(frozen=True)
class Expected:
    runtime_name: str       # the runtime's name, and the RuntimeClass's handler
    runtime_type: str       # the runc shim's, which every NVIDIA runtime entry uses
    binary_name: str        # what the runc shim runs for it
    systemd_cgroup: bool    # a TOML boolean, as the kubelet's cgroup driver
    default: object         # the default runtime's rule (containerd/default_rule.py): the lab's, or the node's own kept
    removing: bool = False  # mode=remove: the runtime is gone unless the file still has it (a node's own)
    cdi_kind: str = CDI_KIND  # the devices' kind in the CDI spec, as pods ask for them (nvidia.com/gpu=all)
    cdi_spec: str = ""        # the spec judged: cdi_spec, or a node's own where it is (steps/cdi.py judged_spec)


def decide(run) -> Expected:
    """The run's expectations, from its parameters and the config as it is before the run writes. A runtime of
    that name that is another owner's (containerd/owner.py; step 2 refuses it, and no fix overwrites it) is
    expected as its owner wrote it: its values are theirs, and containerd must read them so."""
    p = run.p
    runtime_type, binary, systemd = RUNTIME_TYPE, p.binary_name, p.systemd_cgroup
    try:
        eff = run.effective_with({})  # read afresh, not kept: the run's cache is for the steps' own reads
        node_default = default_runtime_name(eff.data, eff.version) if not eff.main.empty else None
        if foreign_problem(run, eff) is not None:
            theirs, _ = runtime_table(eff.data, eff.version, p.runtime_name)
            options = theirs.get("options") if isinstance(theirs.get("options"), dict) else {}
            runtime_type = theirs.get("runtime_type", runtime_type)
            binary, systemd = options.get("BinaryName", binary), options.get("SystemdCgroup", systemd)
    except RunbookError:  # no config yet, or one that cannot be read: step 1 or 2 says why
        node_default = None
    try:
        spec = judged_spec(run)
    except RunbookError:  # a CDI folder that cannot be read: step 6 says why
        spec = p.cdi_spec
    return Expected(p.runtime_name, runtime_type, binary, systemd, DefaultRule.of(p, node_default),
                    removing=run.mode.removes, cdi_spec=spec)
