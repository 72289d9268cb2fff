"""`smoke node` with CDI: did the spec's containerEdits arrive in the container?

A second container of the smoke pod asks for the same CDI device and runs a probe in the image's /bin/sh,
with shell built-ins only (no coreutils needed): for each env var the spec sets, its value as the process
sees it; the container's mount points (/proc/self/mountinfo); and whether each device node the spec names
exists. The expected edits come from the spec (runbook_lib/cdi/edits.py); what did not arrive is listed, one
item a line (named by the spec's keys: env, mounts, deviceNodes), for the finding `pod.node.cdi_edits_missing`.
"""
from __future__ import annotations

import re
import shlex

SHELL = "/bin/sh"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")  # what a shell can name; others are not probed
UNSET = "<unset>"


def probe_command(expected: dict) -> list[str]:
    lines = []
    for name in expected["env"]:
        if _NAME.match(name):
            lines.append(f'if [ "${{{name}+x}}" = x ]; then printf "env %s=%s\\n" {name} "${name}"; '
                         f'else printf "unset %s\\n" {name}; fi')
    lines.append('while IFS= read -r line; do printf "mountinfo %s\\n" "$line"; done < /proc/self/mountinfo')
    for path in expected["device_nodes"]:
        quoted = shlex.quote(path)
        lines.append(f'if [ -c {quoted} ] || [ -b {quoted} ]; then printf "node %s\\n" {quoted}; fi')
    return [SHELL, "-c", "\n".join(lines)]


def _unescape(field: str) -> str:
    """mountinfo writes a space, tab, newline and backslash in a path as octal escapes (\\040 ...)."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def observed(output: str) -> dict:
    """What the probe printed: {"env": {name: value or UNSET}, "mounts": [mount point], "device_nodes": [path]}."""
    env, mounts, nodes = {}, [], []
    for line in output.splitlines():
        kind, _, rest = line.partition(" ")
        if kind == "env" and "=" in rest:
            name, value = rest.split("=", 1)
            env[name] = value
        elif kind == "unset":
            env[rest] = UNSET
        elif kind == "mountinfo" and len(rest.split(" ")) > 4:
            mounts.append(_unescape(rest.split(" ")[4]))
        elif kind == "node":
            nodes.append(rest)
    return {"env": env, "mounts": mounts, "device_nodes": nodes}


def missing(expected: dict, seen: dict) -> list[str]:
    """Each edit of the spec the container does not show, as a person reads it."""
    out = []
    for name, value in expected["env"].items():
        if not _NAME.match(name):
            continue
        got = seen["env"].get(name, UNSET)
        if got != value:
            out.append(f"env {name}={value} ≠ {got}")
    out += [f"mounts {path}" for path in expected["mounts"] if path.rstrip("/") not in
            {m.rstrip("/") for m in seen["mounts"]}]
    out += [f"deviceNodes {path}" for path in expected["device_nodes"] if path not in seen["device_nodes"]]
    return out


def arrived(expected: dict, seen: dict) -> list[str]:
    """The edits that did arrive, for the notebook's evidence (named by the spec's keys: env, mounts,
    deviceNodes)."""
    items = [f"env {n}={v}" for n, v in expected["env"].items() if _NAME.match(n) and seen["env"].get(n) == v]
    mounts = {m.rstrip("/") for m in seen["mounts"]}
    items += [f"mounts {p}" for p in expected["mounts"] if p.rstrip("/") in mounts]
    items += [f"deviceNodes {p}" for p in expected["device_nodes"] if p in seen["device_nodes"]]
    return items
