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
from runbook_lib.containerd.versions import VERSIONS, of

_READ_KEYS = ("runtimes", "default_runtime_name")  # the keys of the runtime table the runbook's verdicts rest on


def _keys(data: dict, path: tuple[str, ...]) -> list[str]:
    table = get_in(data, path)
    return [k for k in _READ_KEYS if isinstance(table, dict) and k in table]


def read_as(data: dict, version: int) -> int:
    """The version whose tables containerd reads in a file of ``version``: the version itself, or the one whose
    name alone holds the file's runtime tables when containerd 2.x reads that name in it (`also_reads`: a
    version-2 file with its runtimes only under the 2.x name, AKS; 1.x ignores them)."""
    newer = of(version).also_reads
    if newer is not None and _keys(data, of(newer).containerd_table) and not _keys(data, of(version).containerd_table):
        return newer
    return version


def _first_header(f: TomlFile, prefix: tuple[str, ...]) -> int | None:
    line = scan(f.text).first_line_under(prefix)  # a header, or dotted keys or an inline table
    return None if line is None else line + 1


def _runtime_names(data: dict, path: tuple[str, ...]) -> str:
    runtimes = get_in(data, path + ("runtimes",))
    return ", ".join(sorted(runtimes)) if isinstance(runtimes, dict) and runtimes else "-"


def problems(files: list[TomlFile], file_version) -> list[Problem]:
    """Refusals for the layouts above, in every file containerd reads (``file_version(f)``: its own version)."""
    out = []
    for f in files:
        if f.bom:
            out.append(Problem.of("toml.bom", f.lab_path, 1, col=1, file=f.lab_path, file_at=f.at or f.lab_path))
        version = VERSIONS.get(file_version(f))
        if version is None:
            continue
        own = version.containerd_table
        if version.migrates_runtimes_of is not None:  # version 3: 2.3+ migrates version 2's, while it has none
            old = of(version.migrates_runtimes_of).containerd_table
            if _keys(f.data, old) and not get_in(f.data, version.runtimes_path):
                out.append(Problem.of("config.v3_holds_v2_tables", f.lab_path, _first_header(f, old),
                                      runtimes=_runtime_names(f.data, old)))
        elif version.also_reads is not None:  # version 2: 1.x reads its own name, 2.x the newer one
            new = of(version.also_reads).containerd_table
            if _keys(f.data, own) and _keys(f.data, new):
                out.append(Problem.of("config.v2_holds_both_names", f.lab_path, _first_header(f, new),
                                      runtimes_1x=_runtime_names(f.data, own), runtimes_2x=_runtime_names(f.data, new)))
    return out
