"""containerd config versions: one record (`ConfigVersion`) per version in `VERSIONS`, the one place the runbook
keeps what differs between them (where the CRI runtimes are, which containerd reads the version, what 2.x does
with it). Every module reads a record's fields through `of(version)`; none compares a version with a number or
names a plugin table itself (tests/containerd/test_versions.py holds both), so adding a version is adding one record.

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
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from runbook_lib.findings.errors import ConfigError
from runbook_lib.findings.messages import Msg
from runbook_lib.findings.catalog import say
from runbook_lib.containerd import render
from runbook_lib.containerd.layout import scan
from runbook_lib.containerd.tables import get_in

RUNTIME_TYPE = "io.containerd.runc.v2"

# containerd writes this version when it makes a config from nothing (`containerd config default` of 1.6/1.7),
# and every containerd from 1.3 on reads it (2.x migrates it on load).
EMPTY_FILE_VERSION = 2
# A file without a `version` line is version 1, and so is `version = 0` ("Version 0 is not defined, treated at
# version 1", GetVersion in 1.x and 2.x alike).
NO_VERSION_LINE = 1


@dataclass(frozen=True)
class ConfigVersion:
    """Everything the runbook knows of one config version. Every module reads these fields (`of(version)`), none
    compares a version with a number: a new version is one more record in VERSIONS (tests/containerd/test_versions.py holds
    it; tests/real/test_real_versions.py holds each record against the real containerd releases)."""

    number: int
    # -- where the CRI runtimes are
    cri_plugin: tuple[str, ...]       # the plugin table that holds `containerd.runtimes` and the CDI keys
    cri_disabled_by: tuple[str, ...]  # the `disabled_plugins` entries that turn that CRI plugin off
    cri_service: str                  # the CRI gRPC service's plugin (stream server); in 1.x it holds every CRI key
    images_plugin: str | None         # 2.x's image service plugin (sandbox image, snapshotter, registry); None: cri_service
    sandbox_image: tuple[str, ...]    # the pause image's key, under images_plugin (or cri_service)
    snapshotter: tuple[str, ...]      # the CRI snapshotter's key, under images_plugin (or cri_service)
    opt_plugin: str                   # the `opt` plugin (its `path` is where containerd installs optional binaries)
    server_plugins: str | None        # prefix of the plugins that hold grpc, ttrpc, debug, metrics; None: top-level tables
    plugin_keys_are_uris: bool        # `plugins` keys are URIs (io.containerd.*); version 1's are plugin IDs (`cri`)
    # -- which containerd reads it, and what containerd 2.x does with it
    who_reads: str                    # the catalog's sentence (findings.yaml) for which containerd reads it
    written_from: tuple[int, int] | None  # the first containerd release whose `config default` writes it
    dumped: bool                      # `containerd config dump` says this version (1.x dumps a version-1 file as 2)
    merges_key_by_key: bool           # every containerd that reads it merges imports key by key (2.x, mergo); False:
                                      # a 1.x may read it, and replaces a whole plugin table per file
    keeps_builtin_runc: bool          # every containerd that reads it keeps the built-in runc beside the file's
                                      # runtimes (2.x); False: a 1.x may read it, and loses it once any runtime is written
    legacy_default_runtime: bool      # `containerd.default_runtime` is the deprecated runtime table (1.x); 2.x drops it
    cdi_enabled_by_default: bool      # enable_cdi when the file says nothing (1.7: false; 2.x: true)
    plugin_uris: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), hash=False)  # its plugin IDs → their URIs
    also_reads: int | None = None     # 2.x reads a file of this version as version N's tables when its runtimes are only
                                      # under N's name (AKS: version 2 with io.containerd.cri.v1.runtime), reads_2x.py
    migrates_runtimes_of: int | None = None  # 2.3+ migrates version N's runtime tables in a file of this version, but
                                             # only while it has none of its own (reads_2x.py)
    misplaced_code: str | None = None  # the finding for this version's runtime path in a newer file
    cdi_keys: tuple[str, ...] = ("enable_cdi", "cdi_spec_dirs")  # the CDI keys in cri_plugin (cdi_config.py)
    # -- how k3s / RKE2 write it (pkg/agent/templates): the template, the drop-in folder, the quotes of ExtraRuntimes
    k3s_template: str = "config.toml.tmpl"
    k3s_dropins: str = "config.toml.d"
    k3s_quote: str = '"'

    @property
    def plugin_id(self) -> str:
        """The CRI plugin's key under `plugins`."""
        return self.cri_plugin[1]

    @property
    def containerd_table(self) -> tuple[str, ...]:
        return self.cri_plugin + ("containerd",)

    @property
    def runtimes_path(self) -> tuple[str, ...]:
        return self.containerd_table + ("runtimes",)

    def runtime_path(self, name: str) -> tuple[str, ...]:
        return self.runtimes_path + (name,)

    def cdi_path(self, key: str) -> tuple[str, ...]:
        return self.cri_plugin + (key,)

    @property
    def readers(self) -> Msg:
        """Which containerd reads it, in both languages."""
        return say(self.who_reads)


_CRI_1X = "io.containerd.grpc.v1.cri"
_CRI_2X = "io.containerd.cri.v1.runtime"  # 2.x split the CRI plugin: runtimes here, images and the service beside it
_OPT = "io.containerd.internal.v1.opt"

_2X = dict(cri_plugin=("plugins", _CRI_2X), cri_disabled_by=(_CRI_1X, _CRI_2X), cri_service=_CRI_1X,
           images_plugin="io.containerd.cri.v1.images", sandbox_image=("pinned_images", "sandbox"),
           snapshotter=("snapshotter",), opt_plugin=_OPT, plugin_keys_are_uris=True, dumped=True,
           merges_key_by_key=True, keeps_builtin_runc=True, legacy_default_runtime=False, cdi_enabled_by_default=True,
           k3s_template="config-v3.toml.tmpl", k3s_dropins="config-v3.toml.d", k3s_quote="'")

VERSIONS: dict[int, ConfigVersion] = {v.number: v for v in (
    # containerd 1.x's legacy layout (plugin IDs such as `cri`); 2.x migrates it (v1Migrate)
    ConfigVersion(
        1, cri_plugin=("plugins", "cri"), cri_disabled_by=("cri",), cri_service="cri", images_plugin=None,
        sandbox_image=("sandbox_image",), snapshotter=("containerd", "snapshotter"), opt_plugin="opt",
        server_plugins=None, plugin_keys_are_uris=False, who_reads="versions.containerd_x_s_legacy",
        written_from=None, dumped=False, merges_key_by_key=False, keeps_builtin_runc=False,
        legacy_default_runtime=True, cdi_enabled_by_default=False,
        # containerd's own v1 -> v2 plugin renames (v1Migrate), for the fix line of a version-1 key in a newer file
        plugin_uris=MappingProxyType({
            "cri": _CRI_1X, "cgroups": "io.containerd.monitor.v1.cgroups",
            "linux": "io.containerd.runtime.v1.linux", "scheduler": "io.containerd.gc.v1.scheduler",
            "bolt": "io.containerd.metadata.v1.bolt", "task": "io.containerd.runtime.v2.task",
            "opt": _OPT, "restart": "io.containerd.internal.v1.restart",
            "overlayfs": "io.containerd.snapshotter.v1.overlayfs", "native": "io.containerd.snapshotter.v1.native",
            "diff-service": "io.containerd.service.v1.diff-service",
        }),
        misplaced_code="runtime.misplaced.v1_path"),
    # containerd 1.3-1.7 (plugin URIs); 2.x migrates it
    ConfigVersion(
        2, cri_plugin=("plugins", _CRI_1X), cri_disabled_by=(_CRI_1X,), cri_service=_CRI_1X, images_plugin=None,
        sandbox_image=("sandbox_image",), snapshotter=("containerd", "snapshotter"), opt_plugin=_OPT,
        server_plugins=None, plugin_keys_are_uris=True, who_reads="versions.containerd_x_migrates",
        written_from=(1, 3), dumped=True, merges_key_by_key=False, keeps_builtin_runc=False,
        legacy_default_runtime=True, cdi_enabled_by_default=False, also_reads=3,
        misplaced_code="runtime.misplaced.v2_path"),
    # containerd 2.0-2.2; 2.3 migrates it. containerd 1.x knows no version 3 and silently drops its tables.
    ConfigVersion(3, **_2X, server_plugins=None, who_reads="versions.containerd_migrates_x_drops",
                  written_from=(2, 0), migrates_runtimes_of=2),
    # containerd 2.3 and later; 2.0-2.2 refuse to start. serviceMigrate moved grpc/ttrpc/debug/metrics into
    # `io.containerd.server.v1.*` plugins; the CRI runtimes stay where version 3 has them.
    ConfigVersion(4, **_2X, server_plugins="io.containerd.server.v1.", who_reads="versions.containerd_later_refuse_start",
                  written_from=(2, 3)),
)}


def of(version: int) -> ConfigVersion:
    """The record of a config version containerd reads (a KeyError for any other number)."""
    return VERSIONS[version]


def nearest(version: int) -> ConfigVersion:
    """The record of ``version``, or of the known version nearest to it (a number containerd refuses, read
    before anything checked it: k3s's generated file)."""
    if version in VERSIONS:
        return VERSIONS[version]
    known = tuple(VERSIONS)
    return VERSIONS[known[0] if version < known[0] else known[-1]]


def of_dump(version) -> ConfigVersion:
    """The record for containerd's `config dump`, which says the version it read the file as: no dump says
    version 1 (1.x dumps a version-1 file as version 2), and one without a known version is read as version 2."""
    found = VERSIONS.get(version) if type(version) is int else None
    return found if found is not None and found.dumped else VERSIONS[EMPTY_FILE_VERSION]


def any_cri_disabled_by() -> tuple[str, ...]:
    """The `disabled_plugins` entries that turn off the CRI plugin of any version (a dump lists them as written)."""
    return tuple(dict.fromkeys(name for v in VERSIONS.values() for name in v.cri_disabled_by))


def dumped_cri_plugins() -> tuple[ConfigVersion, ...]:
    """One record for each CRI plugin table a dump can hold the runtimes in (1.x's CRI plugin, 2.x's runtime plugin)."""
    return tuple({v.plugin_id: v for v in VERSIONS.values() if v.dumped}.values())


def plugin_uri(plugin_id: str) -> str | None:
    """The URI containerd migrates an old plugin ID to (`cri` → io.containerd.grpc.v1.cri), or None."""
    return next((v.plugin_uris[plugin_id] for v in VERSIONS.values() if plugin_id in v.plugin_uris), None)


def read_by(version: int) -> Msg:
    """"version N (read by ...)" in both languages."""
    return say("versions.version", version=version, who=of(version).readers)


def newest_version_read_by(containerd_version: str | None) -> int | None:
    """The newest config version a containerd of that version reads and writes with `config default`
    (`containerd --version`'s third word, e.g. "1.6.20~ds1", "v2.3.1"), or None when that word is no version
    (a build of its own make): then nothing is known of it. A release older than every record's
    `written_from` (before 1.3) is taken for the oldest one that writes a version."""
    m = re.match(r"v?(\d+)\.(\d+)", containerd_version or "")
    if not m:
        return None
    release = (int(m.group(1)), int(m.group(2)))
    writers = [v for v in VERSIONS.values() if v.written_from is not None]
    newest = [v for v in writers if v.written_from <= release]
    return (newest[-1] if newest else writers[0]).number


def version_for_containerd(containerd_version: str | None) -> int:
    """The version to write into an empty or missing config, from the node's containerd: the one it writes
    itself. Unknown: version 2, which every containerd from 1.3 on reads (2.x migrates it)."""
    known = newest_version_read_by(containerd_version)
    return EMPTY_FILE_VERSION if known is None else known


def containerd_table(version: int) -> tuple[str, ...]:
    return of(version).containerd_table


def runtimes_path(version: int) -> tuple[str, ...]:
    return of(version).runtimes_path


def runtime_path(version: int, name: str) -> tuple[str, ...]:
    return of(version).runtime_path(name)


def format_path(path: tuple[str, ...]) -> str:
    """A table path as a TOML header would write it, quoting the parts that need it."""
    import re
    return ".".join(p if re.fullmatch(r"[A-Za-z0-9_-]+", p) else f'"{p}"' for p in path)


def runtime_table(cfg: dict, version: int, name: str) -> tuple:
    """(cfg's table of the runtime ``name`` or None, where containerd looks it up, as shown to a person)."""
    return _at(cfg, runtime_path(version, name))


def runtimes_table(cfg: dict, version: int) -> tuple:
    """(cfg's table of every runtime by name or None, where it is looked up)."""
    return _at(cfg, runtimes_path(version))


def main_table(cfg: dict, version: int) -> tuple:
    """(the table holding default_runtime_name and the runtimes, or None, where it is looked up)."""
    return _at(cfg, containerd_table(version))


def _at(cfg: dict, path: tuple) -> tuple:
    return get_in(cfg, path), format_path(path)


def detect_version(data: dict, *, path: str, empty: bool, text: str | None = None) -> int:
    """The version containerd will use for this file's tables (``text``, when given, locates a bad value)."""
    if "version" not in data:
        return EMPTY_FILE_VERSION if empty else NO_VERSION_LINE
    v = data["version"]
    if v == 0 and type(v) is int:
        return NO_VERSION_LINE  # containerd: "Version 0 is not defined, treated at version 1" (GetVersion in 1.x alike)
    if isinstance(v, bool) or not isinstance(v, int) or v not in VERSIONS:
        shown = render.value(v) if isinstance(v, (str, bool, int, float)) else str(v)
        table = Msg.join("; ", [say("versions.read_by_entry", version=n, read_by=of(n).readers) for n in VERSIONS])
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
