"""The promise "nothing else changes in containerd's reading", checked on containerd's own `config dump`: the
effective config after a run may differ from the one before only by the runtime tables the run means to add (the
runtime and its variants) and the CDI settings (enable_cdi, cdi_spec_dirs) — and, with layout=dropin, by the
`imports` entry naming the drop-in. The default runtime's table, every other runtime, every other plugin:
identical. Step 9 asks it when it can ask containerd; tests/real/realworld_judge.py proves it for every
real-world config with every real containerd release.
"""

from __future__ import annotations

import copy

from runbook_lib.containerd.versions import dumped_cri_plugins


def without_ours(dump: dict, runtimes: tuple[str, ...], *, imports: bool = False) -> dict:
    """A dump minus what a run may add: those runtimes' tables, the CDI settings (and `imports`)."""
    out = copy.deepcopy(dump)
    if imports:
        out.pop("imports", None)
    elif isinstance(out.get("imports"), list):
        # the files containerd read, in no order of its own: containerd 1.6 lists them from a Go map, so two dumps
        # of the same files list them in either order (tests/containerd/test_invariant.py)
        out["imports"] = sorted(out["imports"], key=str)
    for version in dumped_cri_plugins():  # 1.x's CRI plugin, 2.x's runtime plugin
        table = out.get("plugins", {}).get(version.plugin_id)
        if not isinstance(table, dict):
            continue
        for key in version.cdi_keys:
            table.pop(key, None)
        found = table
        for key in version.runtimes_path[len(version.cri_plugin):]:
            found = found.get(key, {})
        for name in runtimes:
            found.pop(name, None)
    _drop_misplaced(out.get("plugins", {}), runtimes)
    return out


def _drop_misplaced(node, runtimes: tuple[str, ...]) -> None:
    """Our runtimes' tables anywhere else under `plugins` (`plugins.cri...runtimes.nvidia` in a version-2 file,
    `runtimes.nvidia` without `.containerd`): copies no plugin but the CRI reads, which the run moves to where
    containerd reads them (2.x dumps such a table as it is, so its removal shows as a difference)."""
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        if key == "runtimes" and isinstance(value, dict):
            for name in runtimes:
                value.pop(name, None)
        _drop_misplaced(value, runtimes)


def _zero(v) -> bool:
    """Go's zero value, which containerd reads exactly as a key left out (1.6 dumps its built-in runc with
    `BinaryName = ""` and the rest; the runc table step 2 writes for it leaves them out)."""
    return v is None or v is False or (not isinstance(v, bool) and v in ("", 0, [])) or \
        (isinstance(v, dict) and all(_zero(x) for x in v.values()))


def differences(a, b, path: str = "") -> list[str]:
    """The dotted paths at which two parsed dumps differ (a zero value and a missing key are the same)."""
    return [".".join(keys) if not path else ".".join((path, *keys)) for keys in _differing(a, b, ())]


def _differing(a, b, path: tuple[str, ...]) -> list[tuple[str, ...]]:
    if isinstance(a, dict) or isinstance(b, dict):
        a, b = (a if isinstance(a, dict) else {} if _zero(a) else a), (b if isinstance(b, dict) else {} if _zero(b) else b)
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b)):
            out += _differing(a.get(key), b.get(key), path + (key,))
        return out
    return [] if a == b or (_zero(a) and _zero(b)) else [path]


def changed_beside(before: dict, after: dict, runtimes: tuple[str, ...], *, imports: bool = False) -> list[str]:
    """What containerd reads differently after the run, beside what the run means to add: [] keeps the promise."""
    return differences(without_ours(before, runtimes, imports=imports), without_ours(after, runtimes, imports=imports))


def changed_values(before: dict, after: dict, runtimes: tuple[str, ...], *,
                   imports: bool = False) -> list[tuple[tuple[str, ...], object, object]]:
    """The same differences as (keys, value before, value after): which table and key, and what changes."""
    a, b = without_ours(before, runtimes, imports=imports), without_ours(after, runtimes, imports=imports)
    return [(keys, _at(a, keys), _at(b, keys)) for keys in _differing(a, b, ())]


def _at(data, keys: tuple[str, ...]):
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data
