"""Another owner's runtime: a runtime of the wanted name whose BinaryName is not the runbook's.

Left alone, the edit would rewrite that BinaryName (edit.py's update of an existing table, dropin.py's copy
of the current table): a GPU Operator node would lose its toolkit's runtime, a k3s/RKE2 node would get a
table that fights the one the distribution regenerates. So the plan asks `foreign_runtime` first and refuses
on its finding unless the caller says `replace_runtime=True`; on a real node (root "/") it also refuses when
the new binary is not there, since containerd would then fail every GPU pod.

Whose a binary looks like:
- GPU Operator: its toolkit container installs under /usr/local/nvidia/toolkit (nvidia-container-runtime,
  .cdi, .legacy).
- nvidia-ctk (`nvidia-ctk runtime configure`): /usr/bin/nvidia-container-runtime from the packages.
- Bottlerocket: its nvidia variants' runtime runs its own wrapper, `BinaryName = "nvidia-oci"` (a name on its
  PATH, not a path typo), in the config it renders from its settings.
- k3s / RKE2: they add `nvidia`, `nvidia-experimental`, `nvidia-cdi` themselves when they find the binaries
  (k3s pkg/agent/containerd: /usr/local/nvidia/toolkit, /opt/kwasm/bin, then PATH), in the file they
  generate under /var/lib/rancher/{k3s,rke2}/agent/etc/containerd/.
"""

from __future__ import annotations

from runbook_lib.findings.problem import Problem
from runbook_lib.findings.catalog import say
from runbook_lib.fs.target import Target
from runbook_lib.containerd.effective import locate
from runbook_lib.containerd.findings import BINARY_MISSING, OTHER_BINARY, OWNER_CODES, TEMPLATE_HAS_RUNTIME, RuntimeOwnedElsewhere, raised  # noqa: F401 - re-exported
from runbook_lib.containerd.tables import get_in
from runbook_lib.containerd.versions import runtime_path
from runbook_lib.k8s.names import quoted

GPU_OPERATOR_DIR = "/usr/local/nvidia/toolkit"
NVIDIA_CTK_BINARY = "/usr/bin/nvidia-container-runtime"
# BinaryNames that are another owner's program under a name, not a relative path written by mistake
NAMED_BINARIES = {"nvidia-oci": "bottlerocket"}
RANCHER_GENERATED = ("/var/lib/rancher/k3s/agent/etc/containerd/", "/var/lib/rancher/rke2/agent/etc/containerd/")

def looks_like(binary: str, defined_in: str | None = None) -> str:
    """"gpu-operator", "k3s", "rke2", "nvidia-ctk", "bottlerocket" or "unknown": whose a BinaryName (and the file that
    defines it) looks like."""
    for dist, prefix in zip(("k3s", "rke2"), RANCHER_GENERATED):
        # the file k3s/RKE2 generate; a drop-in of the folder it imports (config-v3.toml.d/) is the site's own
        if defined_in and defined_in.startswith(prefix) and ".toml.d/" not in defined_in:
            return dist
    if binary in NAMED_BINARIES:
        return NAMED_BINARIES[binary]
    if binary.startswith(GPU_OPERATOR_DIR + "/"):
        return "gpu-operator"
    if binary == NVIDIA_CTK_BINARY:
        return "nvidia-ctk"
    return "unknown"


_OWNER_NAMES = {
    "gpu-operator": say("owner.gpu_operator_s_toolkit"),
    "nvidia-ctk": say("owner.nvidia_ctk_nvidia_container"),
    "k3s": say("owner.k3s_adds_runtime_itself"),
    "rke2": say("owner.rke2_adds_runtime_itself"),
    "bottlerocket": say("owner.bottlerocket_s_own_runtime"),
    "unknown": say("owner.another_tool_person"),
}


def foreign_runtime(data: dict, version: int, name: str, binary: str, *, defined_in: str | None = None,
                    line: int | None = None, replace_runtime: bool = False,
                    target: Target | None = None) -> Problem | None:
    """The finding that stops the plan, or None when it may go on.

    ``data``/``version``: the effective config; ``name``/``binary``: the wanted runtime; ``defined_in``/``line``:
    where the existing table is written (diagnose.locate), to say whose it looks like and where. A relative
    or non-string BinaryName naming the same program is a mistake to repair, not another owner. With
    ``replace_runtime`` on a real node (``target.is_host``), the replacement is refused when the new binary
    is not under the root: the owner's working runtime would become one that fails every GPU pod."""
    table = get_in(data, runtime_path(version, name))
    current = get_in(table, ("options", "BinaryName")) if isinstance(table, dict) else None
    named = isinstance(current, str) and current in NAMED_BINARIES  # another owner's program by name (nvidia-oci)
    if not isinstance(current, str) or not (current.startswith("/") or named) or current.strip() == binary:
        return None  # the same program written with a space around it is a typo to repair, as a relative path is
    if replace_runtime:
        if target is not None and target.is_host and not target.resolve(binary).exists():
            return Problem.of(BINARY_MISSING, binary, binary=binary)
        return None
    owner = looks_like(current, defined_in)
    who = _OWNER_NAMES[owner]
    where = f"{defined_in}:{line}" if defined_in and line else (defined_in or "")
    return Problem.of(OTHER_BINARY, defined_in, line, runtime=name, current=quoted(current), wanted=quoted(binary), owner=owner,
                      file=defined_in, where=where, who=who)


def require_not_foreign(eff, name: str, binary: str, *, replace_runtime: bool = False,
                        target: Target | None = None) -> None:
    """Raise RuntimeOwnedElsewhere when ``foreign_runtime`` has a finding for the effective config ``eff``."""
    path = runtime_path(eff.version, name)
    file_, line = locate(eff, path + ("options", "BinaryName"))
    finding = foreign_runtime(eff.data, eff.version, name, binary, defined_in=file_, line=line,
                              replace_runtime=replace_runtime, target=target)
    if finding is not None:
        raise raised(finding)


__all__ = ["RuntimeOwnedElsewhere", "foreign_runtime", "require_not_foreign", "looks_like",
           "OTHER_BINARY", "BINARY_MISSING"]
