"""The node's paths a CDI spec names, and which of them the node does not have.

A CDI consumer (containerd, CRI-O, podman) opens what a spec names on its own machine: each device node's
hostPath (its path when it has none), each mount's hostPath and each hook's path. A spec made by
`nvidia-ctk cdi generate --driver-root=/host --dev-root=/host` in a container that sees the node at /host names
/host/dev/nvidia0, a path the node itself does not have, and every GPU container of the node then fails. So on a
node every such path is looked up under the target root, as a chroot would (fs/target.py: links followed
inside the root), and one that is not there is the step's finding.
"""

from __future__ import annotations

import os

from runbook_lib.cdi.validate import pointer
from runbook_lib.findings.errors import RunbookError


def _list(obj, key) -> list:
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, list) else []


def host_paths(doc: dict) -> list[tuple[str, str]]:
    """(JSON pointer, path) of every path of the node the spec names, each path once (its first place), in the
    order nvidia-ctk writes them: each device's containerEdits, then the spec's own."""
    places = [(dev.get("containerEdits"), ["devices", i, "containerEdits"])
              for i, dev in enumerate(_list(doc, "devices")) if isinstance(dev, dict)]
    places.append((doc.get("containerEdits"), ["containerEdits"]))
    out: dict[str, str] = {}
    for edits, at in places:
        for i, node in enumerate(_list(edits, "deviceNodes")):
            if isinstance(node, dict):
                key = "hostPath" if node.get("hostPath") else "path"  # no hostPath: the consumer opens path
                out.setdefault(node.get(key), pointer(at + ["deviceNodes", i, key]))
        for i, mount in enumerate(_list(edits, "mounts")):
            if isinstance(mount, dict):
                out.setdefault(mount.get("hostPath"), pointer(at + ["mounts", i, "hostPath"]))
        for i, hook in enumerate(_list(edits, "hooks")):
            if isinstance(hook, dict):
                out.setdefault(hook.get("path"), pointer(at + ["hooks", i, "path"]))
    # a path that is not absolute is the CDI rules' (or the consumer's) to judge, never looked up here
    return [(where, path) for path, where in out.items() if isinstance(path, str) and path.startswith("/")]


def exists(target, path: str) -> bool:
    """Whether ``path`` is there on the node whose / is the target's root (links as in a chroot)."""
    try:
        return os.path.exists(target.resolve(path))
    except (RunbookError, OSError):  # a link loop, a link out of the root: nothing the node can open there
        return False


def missing(target, doc: dict) -> list[tuple[str, str]]:
    """(JSON pointer, path) of every path the spec names that the node does not have."""
    return [(where, path) for where, path in host_paths(doc) if not exists(target, path)]


def mount_prefix(target, paths: list[str]) -> str | None:
    """The folder every one of ``paths`` starts with and that, taken off, leaves paths the node has: the mount
    point the spec was made under (/host for /host/dev/nvidia0), which `nvidia-ctk cdi transform root --from`
    takes off. None when there is no such folder."""
    first = paths[0].strip("/").split("/")
    for n in range(1, len(first)):
        prefix = "/" + "/".join(first[:n])
        if all(p.startswith(prefix + "/") and exists(target, p[len(prefix):]) for p in paths):
            return prefix
    return None


def shown(paths: list[str], most: int = 3) -> str:
    """The first ``most`` paths, and how many more there are."""
    text = ", ".join(paths[:most])
    return text if len(paths) <= most else f"{text} (+{len(paths) - most})"

