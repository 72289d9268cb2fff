"""What a CDI device request should change in a container: the spec's containerEdits, as the CDI library
applies them (the spec-wide edits, then the named device's), reduced to what a process inside can observe.

- env: `NAME=VALUE` entries, the last one of a name winning;
- mounts: each mount's `containerPath` (a mount point inside);
- device nodes: each device node's `path` (a node inside).

Hooks and the rest leave nothing a plain process can read, so they are not expected. The pod step's `node`
mode asks for `<kind>=all` and compares what its probe container saw with this (containerd/smoke/cdi_probe.py).
"""
from __future__ import annotations


def _edits(table) -> dict:
    edits = table.get("containerEdits") if isinstance(table, dict) else None
    return edits if isinstance(edits, dict) else {}


def _entries(edits: dict, key: str) -> list:
    value = edits.get(key)
    return value if isinstance(value, list) else []


def expected_edits(spec: dict, device: str) -> dict:
    """{"env": {name: value}, "mounts": [container path], "device_nodes": [path]} that asking for the device
    `device` (its name within the spec's kind) brings into a container."""
    tables = [_edits(spec)] + [_edits(d) for d in spec.get("devices") or []
                               if isinstance(d, dict) and d.get("name") == device]
    env: dict[str, str] = {}
    mounts: list[str] = []
    nodes: list[str] = []
    for edits in tables:
        for entry in _entries(edits, "env"):
            if isinstance(entry, str) and "=" in entry:
                name, value = entry.split("=", 1)
                env[name] = value
        mounts += [m["containerPath"] for m in _entries(edits, "mounts")
                   if isinstance(m, dict) and isinstance(m.get("containerPath"), str)]
        nodes += [n["path"] for n in _entries(edits, "deviceNodes") if isinstance(n, dict) and isinstance(n.get("path"), str)]
    return {"env": env, "mounts": list(dict.fromkeys(mounts)), "device_nodes": list(dict.fromkeys(nodes))}
