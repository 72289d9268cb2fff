"""containerd's spelling of the runc options the runbook owns, and the keys that only differ from it in case.

kubespray writes runc's options as `binaryName` / `systemdCgroup` (roles/container-engine/containerd/
templates/config.toml.j2 with defaults/main.yml's `containerd_runc_runtime`) and relies on containerd decoding
them case-insensitively into runc's Options. A runtime copied from such a runc and given `BinaryName` would
hold both spellings; which one containerd then takes depends on its decoder's lookup order, and GPU pods may
run plain runc. So a copied table loses the variant keys, and a variant found in the runtime's own table is
reported with the line to delete.
"""

from __future__ import annotations

from runbook_lib.findings.messages import Msg
from runbook_lib.findings.catalog import say
from runbook_lib.containerd.layout import scan

OWNED_OPTIONS = ("BinaryName", "SystemdCgroup")
_LOWER = {k.lower(): k for k in OWNED_OPTIONS}


def case_variants(options: dict) -> dict[str, str]:
    """{variant key: containerd's spelling} for the keys of ``options`` that differ from it only in case."""
    if not isinstance(options, dict):
        return {}
    return {k: _LOWER[k.lower()] for k in options if k.lower() in _LOWER and k != _LOWER[k.lower()]}


def without_variants(options: dict) -> dict:
    """A copy of ``options`` without the variant keys, every other key in its order."""
    drop = case_variants(options)
    return {k: v for k, v in options.items() if k not in drop}


def variant_notes(text: str, options_path: tuple[str, ...], options: dict, lab_path: str) -> list[Msg]:
    """A note for each variant key in the options table at ``options_path`` of a file: where it is, what the
    runbook writes instead, and the line to delete."""
    layout = scan(text)
    out = []
    for key, proper in case_variants(options).items():
        kv = layout.keyvalue(options_path + (key,))
        where = f"{lab_path}:{kv.line + 1}" if kv is not None else lab_path
        out.append(say("spelling.options_key_differs_containerd", where=where, key=key, proper=proper))
    return out
