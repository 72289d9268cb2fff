"""containerd config versions and where each keeps the CRI runtimes: the one place these paths live.

containerd reads the ``version`` key; a file without it is version 1, whatever its tables look like. Which
containerd reads which version (containerd's cmd/containerd/server/config/config.go, `migrations`, and
version/version.go, `ConfigVersion`: 3 in 2.0-2.2, 4 from 2.3.0):

- 1: containerd 1.x's legacy layout (plugin IDs such as `cri`); 2.x migrates it (v1Migrate).
- 2: containerd 1.3-1.7 (plugin URIs); 2.x migrates it.
- 3: containerd 2.0-2.2; 2.3 migrates it (serviceMigrate moves grpc/ttrpc/debug/metrics into
  `io.containerd.server.v1.*` plugins). containerd 1.x knows no version 3 and silently drops its tables.
- 4: containerd 2.3 and later; 2.0-2.2 refuse to start ("expected containerd config version equal to or
  less than `3`, got `4`"). The CRI runtimes stay where version 3 has them.
"""

from __future__ import annotations

import re

from runbook_lib.findings.errors import ConfigError
from runbook_lib.findings.messages import Msg
from runbook_lib.findings.catalog import say
from runbook_lib.containerd import render
from runbook_lib.containerd.layout import scan

RUNTIME_TYPE = "io.containerd.runc.v2"

# The plugin table that holds `containerd.runtimes` in each version.
CRI_RUNTIME_PLUGIN = {
    1: ("plugins", "cri"),
    2: ("plugins", "io.containerd.grpc.v1.cri"),
    3: ("plugins", "io.containerd.cri.v1.runtime"),
    4: ("plugins", "io.containerd.cri.v1.runtime"),   # 2.3 moved server settings, not the CRI runtimes
}
KNOWN_VERSIONS = tuple(CRI_RUNTIME_PLUGIN)

# Names under which the CRI plugin can be disabled in `disabled_plugins` (v1 uses plugin IDs, v2+ URIs).
CRI_PLUGIN_NAMES = {
    1: ("cri",),
    2: ("io.containerd.grpc.v1.cri",),
    3: ("io.containerd.grpc.v1.cri", "io.containerd.cri.v1.runtime"),
    4: ("io.containerd.grpc.v1.cri", "io.containerd.cri.v1.runtime"),
}

# Which containerd reads each version, for every message that names a version.
READ_BY = {
    1: say("versions.containerd_x_s_legacy"),
    2: say("versions.containerd_x_migrates"),
    3: say("versions.containerd_migrates_x_drops"),
    4: say("versions.containerd_later_refuse_start"),
}

# containerd 2.x merges imported files key by key (mergo); 1.x replaces a whole plugin table per file.
MERGES_KEY_BY_KEY = (3, 4)

# containerd writes this version when it makes a config from nothing (`containerd config default` of 1.6/1.7),
# and every containerd from 1.3 on reads it (2.x migrates it on load).
EMPTY_FILE_VERSION = 2


def read_by(version: int) -> Msg:
    """"version N (read by ...)" in both languages."""
    who = READ_BY[version]
    return say("versions.version", version=version, who=who)


def newest_version_read_by(containerd_version: str | None) -> int | None:
    """The newest config version a containerd of that version reads and writes with `config default`
    (`containerd --version`'s third word, e.g. "1.6.20~ds1", "v2.3.1"), or None when that word is no version
    (a build of its own make): then nothing is known of it."""
    m = re.match(r"v?(\d+)\.(\d+)", containerd_version or "")
    if not m:
        return None
    major, minor = int(m.group(1)), int(m.group(2))
    if major < 2:
        return 2
    return 3 if (major, minor) < (2, 3) else 4


def version_for_containerd(containerd_version: str | None) -> int:
    """The version to write into an empty or missing config, from the node's containerd: the one it writes
    itself. Unknown: version 2, which every containerd from 1.3 on reads (2.x migrates it)."""
    known = newest_version_read_by(containerd_version)
    return EMPTY_FILE_VERSION if known is None else known


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


def detect_version(data: dict, *, path: str, empty: bool, text: str | None = None) -> int:
    """The version containerd will use for this file's tables (``text``, when given, locates a bad value)."""
    if "version" not in data:
        return EMPTY_FILE_VERSION if empty else 1
    v = data["version"]
    if v == 0 and type(v) is int:
        return 1  # containerd: "Version 0 is not defined, treated at version 1" (GetVersion in 1.x alike)
    if isinstance(v, bool) or not isinstance(v, int) or v not in CRI_RUNTIME_PLUGIN:
        shown = render.value(v) if isinstance(v, (str, bool, int, float)) else str(v)
        table = Msg.join("; ", [say("versions.read_by_entry", version=n, read_by=READ_BY[n]) for n in KNOWN_VERSIONS])
        raise ConfigError.of("config.unreadable.version_value_wrong_expected", path=path, line=_version_line(text), shown=shown, table=table)
    return v


def _version_line(text: str | None) -> int | None:
    """1-based line of the top-level `version` key, when the file's text is known."""
    if text is None:
        return None
    kv = scan(text).keyvalue(("version",))
    return kv.line + 1 if kv is not None and kv.table == () else None


def v2_style_tables_without_version(data: dict) -> bool:
    """A file with no version line whose plugin tables use version-2 names: containerd reads it as version 1
    and ignores those tables (the seed's "copied snippet does nothing")."""
    plugins = data.get("plugins")
    return "version" not in data and isinstance(plugins, dict) and any(
        k.startswith("io.containerd.") for k in plugins)
