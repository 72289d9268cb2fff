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

from runbook_lib.findings.errors import ConfigError
from runbook_lib.containerd.distro.detect import BASE_INCLUDE, MICROK8S_DATA
from runbook_lib.findings.problem import words
from runbook_lib.containerd.toml_errors import toml_error

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


class TemplateUnrendered(ConfigError):
    """The template has a Go template action the runbook cannot evaluate as k3s would ({{ if ... }}, a field
    of k3s's own config): the config containerd will read cannot be known, so nothing is judged or written."""
    default_code = "distro.template_unrendered"


def rendered_error(exc, rendered: str, template: str, path: str, generated: str) -> ConfigError:
    """A TOML error in the rendering, said of the template: the line the user wrote (usually a table the base
    already defines, written again after `{{ template "base" . }}`), not a line of the generated file, which
    k3s rewrites at every start."""
    err = toml_error(exc, rendered, generated)
    bad = rendered.split("\n")[err.line - 1].strip() if err.line and err.line <= rendered.count("\n") + 1 else ""
    lines = template.replace("\r\n", "\n").split("\n")
    hits = [i for i, ln in enumerate(lines) if bad and ln.strip() == bad]
    line = hits[-1] + 1 if hits else None
    what, fix, _ = words("distro.template_renders_invalid", detail=err.what,
                         generated=generated, shown=bad)
    return ConfigError(what, fix, path=path, line=line, code="distro.template_renders_invalid",
                       excerpt=f"{line:>5} | {lines[line - 1]}" if line else None)


def _field(name: str) -> re.Pattern:
    return re.compile(r"\{\{-?\s*" + re.escape(name) + r"\s*-?\}\}")


def render_rancher_template(template: str, base: str, fields: dict[str, str] | None = None, *,
                            path: str | None = None) -> str:
    """``template`` with the base include replaced by ``base`` and the runbook's fields filled, trimmed as
    k3s's trimEmpty does. Any other action raises TemplateUnrendered, at its line and column in ``path``."""
    fields = {**K3S_FIELDS, **(fields or {})}
    rest = BASE_INCLUDE.sub(lambda m: " " * len(m.group(0)), template)
    for name in fields:
        rest = _field(name).sub(lambda m: " " * len(m.group(0)), rest)
    if "{{" in rest:
        at = rest.index("{{")
        line = template.count("\n", 0, at) + 1
        col = at - (template.rfind("\n", 0, at) + 1) + 1
        action = template[at:template.find("}}", at) + 2 if "}}" in template[at:] else at + 40]
        what, fix, _ = words("distro.template_unrendered", action=action, fields=", ".join(
            ["{{ template \"base\" . }}"] + ["{{ " + n + " }}" for n in fields]))
        raise TemplateUnrendered(what, fix, path=path, line=line, col=col,
                                 excerpt=template.splitlines()[line - 1] if template.splitlines() else None)
    out = BASE_INCLUDE.sub(lambda _: base, template)
    for name, value in fields.items():
        out = _field(name).sub(value, out)
    lines = []
    for line in out.splitlines():
        if line.strip():
            if line.startswith("["):
                lines.append("")
            lines.append(line)
    return "\n".join(lines) + "\n"
