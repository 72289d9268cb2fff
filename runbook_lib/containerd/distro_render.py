"""Render a distribution's containerd template the way the distribution does, so a plan can be checked on the
config containerd will really read.

- k3s / RKE2 (pkg/agent/templates/templates.go, ParseTemplateFromConfig): the user's template is executed
  with the stock config defined as the template "base"; then trimEmpty drops every blank line and puts one
  blank line before each line starting with "[". Here the base is the generated config.toml that k3s wrote
  (already rendered), and the only fields the runbook's own lines use are substituted.
- microk8s (run-containerd-with-args): sed replaces ${SNAP}, ${SNAP_DATA}, ${SNAPSHOTTER}, ${RUNTIME}, then
  ${RUNTIME_TYPE}, literally.
"""

from __future__ import annotations

import re

from .distro import BASE_INCLUDE, MICROK8S_DATA

# what microk8s puts in (RUNTIME is always runc; RUNTIME_TYPE is runc.v2 on cgroup v2 hosts, v1 otherwise)
MICROK8S_VALUES = {"SNAP": "/snap/microk8s/current", "SNAP_DATA": MICROK8S_DATA, "SNAPSHOTTER": "overlayfs",
                   "RUNTIME": "runc", "RUNTIME_TYPE": "io.containerd.runc.v2"}
MICROK8S_ORDER = ("SNAP", "SNAP_DATA", "SNAPSHOTTER", "RUNTIME", "RUNTIME_TYPE")
PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")

# the template fields the runbook writes into a k3s/RKE2 template, and what k3s gives them
K3S_FIELDS = {".SystemdCgroup": "true"}


def placeholders(text: str) -> list[str]:
    """The ${NAME} placeholders of a microk8s template, in order of first use."""
    seen: list[str] = []
    for m in PLACEHOLDER.finditer(text):
        if m.group(1) not in seen:
            seen.append(m.group(1))
    return seen


def render_microk8s(text: str, values: dict[str, str] | None = None) -> str:
    values = {**MICROK8S_VALUES, **(values or {})}
    for name in MICROK8S_ORDER:
        text = text.replace("${" + name + "}", values[name])
    return text


def render_rancher_template(template: str, base: str, fields: dict[str, str] | None = None) -> str:
    """``template`` with the base include replaced by ``base`` and the runbook's fields filled, trimmed as
    k3s's trimEmpty does."""
    fields = {**K3S_FIELDS, **(fields or {})}
    out = BASE_INCLUDE.sub(lambda _: base, template)
    for name, value in fields.items():
        out = re.sub(r"\{\{-?\s*" + re.escape(name) + r"\s*-?\}\}", value, out)
    if "{{" in out:
        raise ValueError("the template uses fields this renderer does not fill: " + out[out.index("{{"):][:60])
    lines = []
    for line in out.splitlines():
        if line.strip():
            if line.startswith("["):
                lines.append("")
            lines.append(line)
    return "\n".join(lines) + "\n"
