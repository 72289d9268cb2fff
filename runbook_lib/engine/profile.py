"""Which world a run is in, decided once, with its reason (shown at the top of the run's output):

- ``lab``: a lab root, judged by the course's rules (the default runtime must be runc, the answer files under
  toolkit_dir, a minimal CDI spec when there is none, containerd's config edited in place);
- ``node``: a real node, given what a node needs (its default runtime is its own, a drop-in where its containerd
  reads one, its CDI spec from its own nvidia-ctk, no answer files: their facts are the run's evidence).

``profile=auto`` tells them apart by what only a lab machine has: a root other than ``/`` is always a lab root
(a node is configured with an explicit ``-p root /``), and at ``/`` the course's base config (``base_config``,
/opt/fixtures/gpu-airgap/containerd/config.toml.base in the lab) marks the lab machine of the course. Every other
``/`` is a node. ``-p profile node`` (or ``lab``) says it outright: a node's root mounted elsewhere, a test's.

The parameters that follow the profile (``default_runtime`` auto, ``layout`` auto) are resolved here, so that
every later reader sees one decided value.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from runbook_lib.containerd.dropin import dropin_imported
from runbook_lib.containerd.edit import default_runtime_name
from runbook_lib.containerd.versions import runtime_table
from runbook_lib.findings.catalog import say
from runbook_lib.findings.errors import RunbookError
from runbook_lib.findings.messages import Msg
from runbook_lib.fs.target import Target

LAB, NODE = "lab", "node"
AUTO = "auto"  # a parameter the run decides (default_runtime, layout, systemd_cgroup)


@dataclass(frozen=True)
class Decision:
    name: str     # lab | node
    reason: Msg   # why, in both languages ("node: root is / and ...")

    def as_dict(self) -> dict:
        return {"name": self.name, "reason": self.reason.as_dict()}


def _base_config_there(p) -> bool:
    try:
        return Target(p.root).resolve(p.base_config).is_file()
    except (OSError, RunbookError):
        return False


def decide(p) -> Decision:
    """The profile of a run with these parameters, and why."""
    if p.profile in (LAB, NODE):
        return Decision(p.profile, say(f"profile.given.{p.profile}"))
    if os.path.realpath(p.root) != "/":
        return Decision(LAB, say("profile.auto.lab_root", root=p.root))
    if _base_config_there(p):
        return Decision(LAB, say("profile.auto.base_config", base=p.base_config))
    return Decision(NODE, say("profile.auto.node", base=p.base_config))


def resolved(p, decision: Decision):
    """The parameters with the profile and what follows it decided: profile lab or node, default_runtime runc or
    keep, systemd_cgroup the lab's true (layout auto, and a node's systemd_cgroup auto, are decided with the
    config: engine/run.py's choose_route and systemd_cgroup below)."""
    default_runtime = p.default_runtime
    if default_runtime == "auto":
        default_runtime = "keep" if decision.name == NODE else "runc"
    cgroup = p.systemd_cgroup
    if cgroup == AUTO and decision.name != NODE:
        cgroup = True  # the course's rule: the lab's kubelet uses the systemd cgroup driver
    return replace(p, profile=decision.name, default_runtime=default_runtime, systemd_cgroup=cgroup)


def systemd_cgroup(asked, read) -> bool:
    """systemd_cgroup=auto on a node: the default runtime's SystemdCgroup as containerd reads it, as nvidia-ctk
    copies it into the runtime it adds (the kubelet of a working node already uses that driver). A key left out
    is containerd's zero value, false; so is a config that cannot be read (its step says why). ``read`` gives
    the effective config as containerd will merge it."""
    if asked != AUTO:
        return asked
    try:
        eff = read()
        table, _ = runtime_table(eff.data, eff.version, default_runtime_name(eff.data, eff.version))
    except RunbookError:
        return False
    options = table.get("options") if isinstance(table, dict) else None
    value = options.get("SystemdCgroup") if isinstance(options, dict) else None
    return value if isinstance(value, bool) else False


def layout_for(run) -> tuple[str, Msg | None]:
    """layout=auto: in place in a lab; on a node, a drop-in where its containerd's config already imports the
    folder the drop-in goes in (containerd 2.x's own default config does), in place otherwise (and on a
    distribution's route, which writes its own file)."""
    p = run.p
    if p.layout != "auto":
        return p.layout, None
    if p.profile != NODE:
        return "inplace", None
    if run.on_distro:
        return "inplace", None
    if p.variants:  # the GPU Operator-style variants are written in place (variants.inplace_only)
        return "inplace", say("profile.layout.inplace_variants")
    where = dropin_imported(run.target, p.config_path, p.runtime_name)
    if where:
        return "dropin", say("profile.layout.dropin", config=p.config_path, imports=where)
    return "inplace", say("profile.layout.inplace", config=p.config_path)
