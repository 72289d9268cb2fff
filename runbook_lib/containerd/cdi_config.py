"""CDI in containerd's CRI plugin: is it on, and does it scan the folder the runbook's CDI spec is in.

Where the keys live and their defaults (containerd's source):
- containerd 1.6: no CDI support at all (pkg/cri/config has no enable_cdi; the key would be dropped).
- containerd 1.7 (config version 2, or 1): `enable_cdi` (default false) and `cdi_spec_dirs` (default
  ["/etc/cdi", "/var/run/cdi"]) in the CRI plugin, plugins."io.containerd.grpc.v1.cri" (pkg/cri/config).
- containerd 2.x (config version 3, 4): the same keys in plugins."io.containerd.cri.v1.runtime", where
  `enable_cdi` defaults to true (internal/cri/config/config_unix.go; false is deprecated).
A version-2 file read by containerd 2.x is migrated: its CRI keys move to the runtime plugin, so the 1.7
defaults and path apply to what the file says, and the 2.x default applies when it says nothing.
"""

from __future__ import annotations

import copy
import posixpath
from dataclasses import dataclass

from runbook_lib.findings.errors import ConfigError
from runbook_lib.containerd import render
from runbook_lib.containerd.edit import EditPlan
from runbook_lib.containerd.layout import scan
from runbook_lib.containerd.load import require_reads_as
from runbook_lib.containerd.splice import lines_of, replace_spans
from runbook_lib.findings.problem import Problem, say
from runbook_lib.containerd.tables import get_in, set_in
from runbook_lib.containerd.versions import format_path, of

DEFAULT_SPEC_DIRS = ("/etc/cdi", "/var/run/cdi")
CDI_DISABLED = "cdi.disabled"
CDI_DIR_NOT_SCANNED = "cdi.spec_dir_not_scanned"


@dataclass(frozen=True)
class CdiSettings:
    version: int
    plugin: tuple[str, ...]          # the table that holds the keys
    enabled: bool                    # as containerd will run (default applied)
    enabled_written: bool | None     # what the file says, None when it says nothing
    spec_dirs: tuple[str, ...]       # as containerd will scan (default applied)
    spec_dirs_written: bool


def cdi_settings(data: dict, version: int) -> CdiSettings:
    """The CDI settings of the effective config ``data`` read as config ``version``."""
    plugin = of(version).cri_plugin
    table = get_in(data, plugin)
    table = table if isinstance(table, dict) else {}
    written = table.get("enable_cdi")
    written = written if isinstance(written, bool) else None
    dirs = table.get("cdi_spec_dirs")
    dirs_ok = isinstance(dirs, list) and all(isinstance(d, str) for d in dirs)
    return CdiSettings(version, plugin, of(version).cdi_enabled_by_default if written is None else written, written,
                       tuple(dirs) if dirs_ok else DEFAULT_SPEC_DIRS, dirs_ok)


def _same_dir(a: str, b: str) -> bool:
    """/var/run is /run on every systemd distribution; CDI folders are compared after that and normpath."""
    def norm(p: str) -> str:
        p = posixpath.normpath(p)
        return "/run" + p[len("/var/run"):] if p == "/var/run" or p.startswith("/var/run/") else p
    return norm(a) == norm(b)


def scans(settings: CdiSettings, spec_dir: str) -> bool:
    return any(_same_dir(d, spec_dir) for d in settings.spec_dirs)


def cdi_findings(settings: CdiSettings, spec_dir: str, *, lab_path: str) -> list[Problem]:
    """What keeps containerd from using a CDI spec written in ``spec_dir``: CDI off, or the folder not among
    cdi_spec_dirs. Each finding carries the code, the values and the lines to write."""
    out = []
    table = format_path(settings.plugin)
    if not settings.enabled:
        said = say("cdi.disabled.written_false" if settings.enabled_written is False else "cdi.disabled.default_false")
        out.append(Problem.of(CDI_DISABLED, lab_path, table=table, written=settings.enabled_written,
                              version=settings.version, said=said))
    if not scans(settings, spec_dir):
        want = render.value(list(settings.spec_dirs) + [spec_dir])
        out.append(Problem.of(CDI_DIR_NOT_SCANNED, lab_path, spec_dir=spec_dir, spec_dirs=list(settings.spec_dirs),
                              table=table, want=want))
    return out


def plan_cdi(text: str, data: dict, version: int, spec_dir: str, *, lab_path: str) -> EditPlan:
    """``text`` with enable_cdi = true and ``spec_dir`` among cdi_spec_dirs in the CRI plugin table of the
    file's version, every other line kept: a value written already is replaced in place (its comment kept),
    a missing key goes after the table's last key with its indentation, a missing table is added at the end.
    Unchanged text when nothing is needed. Verified by re-parsing: the result reads as ``data`` plus the
    two keys, or nothing is planned."""
    settings = cdi_settings(data, version)
    wanted: dict[str, object] = {}
    if settings.enabled_written is not True:
        wanted["enable_cdi"] = True
    if not scans(settings, spec_dir):
        wanted["cdi_spec_dirs"] = list(settings.spec_dirs) + [spec_dir]
    if not wanted:
        return EditPlan(text, notes=[say("cdi_config.containerd_s_cdi_settings")])
    layout = scan(text)
    quote = render.quote_style(text)
    literal = quote == "'"
    expected = copy.deepcopy(data)
    patches, inserts = [], []
    header = layout.header_for(settings.plugin)
    for key, value in wanted.items():
        set_in(expected, settings.plugin + (key,), value)
        rendered = _value(value, literal)
        kv = layout.keyvalue(settings.plugin + (key,))
        if kv is not None:
            patches.append((kv.value_start, kv.value_end, rendered))
        else:
            inserts.append(f"{render.key(key, quote)} = {rendered}")
    new = replace_spans(text, patches)
    if inserts:
        lines = lines_of(new)
        if header is not None:
            kvs = [k for k in layout.keyvalues if k.table == settings.plugin]
            after = kvs[-1].end_line if kvs else header.line
            indent = kvs[-1].indent if kvs else header.indent + ("  " if header.indent or any(h.indent for h in layout.headers) else "")
            lines[after + 1:after + 1] = [f"{indent}{i}\n" for i in inserts]
        else:
            if layout.keyvalue(settings.plugin) is not None:
                raise ConfigError.of("config.unreadable.inline_table_which_runbook", path=lab_path, plugin=format_path(settings.plugin))
            head = render.header([render.key(p, quote) for p in settings.plugin])
            lines += (["\n"] if lines and lines[-1].strip() else []) + [head + "\n"] + [f"  {i}\n" for i in inserts]
        new = "".join(lines)
    require_reads_as(new, expected, lab_path, say("cdi_config.write_by_hand", table=format_path(settings.plugin),
                                                  lines="; ".join(f"{k} = {_value(v, literal)}" for k, v in wanted.items())))
    shown = ", ".join(f"{k} = {_value(v, literal)}" for k, v in wanted.items())
    return EditPlan(new, notes=[say("cdi_config.wrote_containerd_s_cdi", shown=shown)])


def _value(v, literal: bool) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(render.value(i, literal=literal) for i in v) + "]"
    return render.value(v, literal=literal)


def unplan_cdi(text: str, version: int, spec_dir: str, *, lab_path: str) -> str | None:
    """mode=remove: the text plan_cdi was given, when ``text`` is exactly what plan_cdi made of it (its
    enable_cdi / cdi_spec_dirs lines taken out again); None when no such text exists (a person wrote them)."""
    import itertools
    import tomllib
    layout = scan(text)
    found = [kv for kv in (layout.keyvalue(of(version).cdi_path(k)) for k in of(version).cdi_keys) if kv is not None]
    lines = text.splitlines(keepends=True)
    for n in range(len(found), 0, -1):
        for subset in itertools.combinations(found, n):
            candidate = "".join(line for i, line in enumerate(lines)
                                if not any(kv.line <= i <= kv.end_line for kv in subset))
            try:
                again = plan_cdi(candidate, tomllib.loads(candidate), version, spec_dir, lab_path=lab_path).text
            except (tomllib.TOMLDecodeError, ConfigError):
                continue
            if again == text:
                return candidate
    return None
