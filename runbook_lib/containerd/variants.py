"""The GPU Operator-style runtime variants, for a parameter that asks for them: next to `nvidia`, the
toolkit's `nvidia-cdi` (nvidia-container-runtime.cdi: devices from CDI specs only) and `nvidia-legacy`
(nvidia-container-runtime.legacy: the prestart-hook mode), each a runtime of its own with a RuntimeClass of
the same name. The binaries sit next to the main one, as the toolkit installs them (/usr/bin from the
packages, /usr/local/nvidia/toolkit from the GPU Operator)."""

from __future__ import annotations

import posixpath

from runbook_lib.containerd.edit import RuntimeWanted

VARIANTS = (("cdi", ".cdi"), ("legacy", ".legacy"))


def runtime_variants(wanted: RuntimeWanted) -> list[RuntimeWanted]:
    """``[nvidia-cdi, nvidia-legacy]`` for ``wanted`` = nvidia (names follow its name; binaries its folder)."""
    folder, base = posixpath.split(wanted.binary)
    return [RuntimeWanted(f"{wanted.name}-{suffix}", posixpath.join(folder, base + ext), wanted.systemd_cgroup)
            for suffix, ext in VARIANTS]
