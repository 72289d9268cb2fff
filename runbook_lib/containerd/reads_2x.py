"""Layouts that containerd 2.x reads differently from what their version line suggests, as the real 2.2, 2.3 and
2.4 read them (pinned by tests/real/test_real_2x_layouts.py):

- A **version-2 file whose CRI tables already have 2.x names** (AKS's AgentBaker writes `version = 2` with
  `plugins."io.containerd.cri.v1.runtime"...`): 2.x reads the runtimes there and never migrates a
  `grpc.v1.cri` runtime into them (the CRI plugin's configMigration copies a key only where the 2.x table lacks
  it), while 1.x ignores the `cri.v1.*` tables. Such a file is read as version 3's tables (effective.py), so the
  runtime goes where 2.x reads it. With runtimes under both names the two readings differ: refused.
- A **version-3 file that still holds version-2 `grpc.v1.cri` runtimes**: 2.0-2.2 ignore them, 2.3 and later
  migrate them (a file older than version 4 is migrated) — but only while the file has no
  `io.containerd.cri.v1.runtime` runtimes of its own. Writing the runtime where version 3 keeps it would switch
  that migration off, and every runtime there (runc with `SystemdCgroup = true`) would fall back to the
  built-in defaults under 2.3+: refused before any write, the fix is to move the tables to the 2.x name.
- A **UTF-8 byte-order mark**: 1.6 skips it, 2.x refuses the whole file ("invalid character at start of key" at row 1, column 1).
  The other bytes 2.x rejects (DEL, a lone CR, form feed) tomllib rejects as well (load.py).
"""

from __future__ import annotations

from runbook_lib.findings.problem import Problem
from runbook_lib.containerd.layout import scan
from runbook_lib.containerd.load import TomlFile
from runbook_lib.containerd.tables import get_in

V2_CRI = ("plugins", "io.containerd.grpc.v1.cri", "containerd")
V3_CRI = ("plugins", "io.containerd.cri.v1.runtime", "containerd")
_READ_KEYS = ("runtimes", "default_runtime_name")  # the keys of the runtime table the runbook's verdicts rest on


def _keys(data: dict, path: tuple[str, ...]) -> list[str]:
    table = get_in(data, path)
    return [k for k in _READ_KEYS if isinstance(table, dict) and k in table]


def version2_holds_2x_tables(data: dict) -> bool:
    """A version-2 file whose runtime tables are only under the 2.x name (AKS): 2.x reads them, 1.x ignores them."""
    return bool(_keys(data, V3_CRI)) and not _keys(data, V2_CRI)


def _first_header(f: TomlFile, prefix: tuple[str, ...]) -> int | None:
    for h in scan(f.text).headers:
        if h.path[:len(prefix)] == prefix:
            return h.line + 1
    return None


def _runtime_names(data: dict, path: tuple[str, ...]) -> str:
    runtimes = get_in(data, path + ("runtimes",))
    return ", ".join(sorted(runtimes)) if isinstance(runtimes, dict) and runtimes else "-"


def problems(files: list[TomlFile], file_version) -> list[Problem]:
    """Refusals for the layouts above, in every file containerd reads (``file_version(f)``: its own version)."""
    out = []
    for f in files:
        if f.bom:
            out.append(Problem.of("toml.bom", f.lab_path, 1, col=1, file=f.lab_path))
        version = file_version(f)
        if version == 3 and _keys(f.data, V2_CRI) and not get_in(f.data, V3_CRI + ("runtimes",)):
            out.append(Problem.of("config.v3_holds_v2_tables", f.lab_path, _first_header(f, V2_CRI),
                                  runtimes=_runtime_names(f.data, V2_CRI)))
        elif version == 2 and _keys(f.data, V2_CRI) and _keys(f.data, V3_CRI):
            out.append(Problem.of("config.v2_holds_both_names", f.lab_path, _first_header(f, V3_CRI),
                                  runtimes_1x=_runtime_names(f.data, V2_CRI), runtimes_2x=_runtime_names(f.data, V3_CRI)))
    return out
