"""containerd config versions and where each keeps the CRI runtimes: the one place these paths live.

containerd reads the ``version`` key; a file without it is version 1 (containerd 1.x), whatever its tables
look like. containerd 1.6/1.7 know versions 1 and 2; containerd 2.x knows 2 and 3 (it migrates 2 on load).
"""

from __future__ import annotations

from ..errors import ConfigError
from ..messages import Msg

RUNTIME_TYPE = "io.containerd.runc.v2"

# The plugin table that holds `containerd.runtimes` in each version.
CRI_RUNTIME_PLUGIN = {
    1: ("plugins", "cri"),
    2: ("plugins", "io.containerd.grpc.v1.cri"),
    3: ("plugins", "io.containerd.cri.v1.runtime"),
}

# Names under which the CRI plugin can be disabled in `disabled_plugins` (v1 uses plugin IDs, v2+ URIs).
CRI_PLUGIN_NAMES = {
    1: ("cri",),
    2: ("io.containerd.grpc.v1.cri",),
    3: ("io.containerd.grpc.v1.cri", "io.containerd.cri.v1.runtime"),
}

# containerd writes this version when it makes a config from nothing (`containerd config default` of 1.6/1.7),
# and every containerd from 1.3 on reads it (2.x migrates it on load).
EMPTY_FILE_VERSION = 2


def containerd_table(version: int) -> tuple[str, ...]:
    return CRI_RUNTIME_PLUGIN[version] + ("containerd",)


def runtimes_path(version: int) -> tuple[str, ...]:
    return containerd_table(version) + ("runtimes",)


def runtime_path(version: int, name: str) -> tuple[str, ...]:
    return runtimes_path(version) + (name,)


def format_path(path: tuple[str, ...]) -> str:
    """A table path as a TOML header would write it, quoting the parts that need it."""
    import re
    return ".".join(p if re.fullmatch(r"[A-Za-z0-9_-]+", p) else f'"{p}"' for p in path)


def detect_version(data: dict, *, path: str, empty: bool) -> int:
    """The version containerd will use for this file's tables."""
    if "version" not in data:
        return EMPTY_FILE_VERSION if empty else 1
    v = data["version"]
    if isinstance(v, bool) or not isinstance(v, int) or v not in CRI_RUNTIME_PLUGIN:
        raise ConfigError(
            Msg(f"version 값이 잘못되었습니다: {v} (1, 2, 3 중 하나인 정수여야 합니다)",
                f"the version value is wrong: {v} (expected the integer 1, 2 or 3)"),
            Msg("containerd 1.x 라면 'version = 2', containerd 2.x 라면 'version = 3' 으로 적으세요.",
                "write 'version = 2' for containerd 1.x or 'version = 3' for containerd 2.x."),
            path=path)
    return v


def v2_style_tables_without_version(data: dict) -> bool:
    """A file with no version line whose plugin tables use version-2 names: containerd reads it as version 1
    and ignores those tables (the seed's "copied snippet does nothing")."""
    plugins = data.get("plugins")
    return "version" not in data and isinstance(plugins, dict) and any(
        k.startswith("io.containerd.") for k in plugins)
