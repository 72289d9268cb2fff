"""The config containerd will actually use: the main file plus its `imports`, merged as containerd merges.

containerd 1.x (cmd/containerd/server/config/config.go, mergeConfig): every imported file is merged in load
order; a plugin's whole table is *replaced* by the last file that has it (`to.Plugins[k] = v`), lists such as
disabled_plugins are appended, and a non-zero `version` overrides. Imports are followed breadth-first, each file
once; a relative path is relative to the importing file's folder, and a glob is expanded in sorted order.

Every import is one path as containerd names it (resolveImports: `filepath.Clean` of the entry, then
`filepath.Join(filepath.Dir(parent), entry)`, which cleans again, then `filepath.Glob`), and "each file once" is
containerd's own guard (LoadConfig's `loaded` map, keyed by that path, the main file first): an import back to a
file already read (itself, a file that imported it, through a glob or `..`) is skipped, so containerd starts. The
runbook reads the same way, once, and records each such import (``import_cycles``) for the finding that names it.
A cycle through a symbolic link (`conf.d/sub -> .`) gives a new, longer name at each turn, as it does to
containerd; the 41st link of one name is the kernel's ELOOP for containerd and Target's link-loop finding here.

containerd 2.x (services/server/config/config.go, mergeConfig): `mergo.Merge(..., WithOverride)` with no
plugin special case, so plugin tables are merged key by key, recursively; a drop-in may not have a higher
version than the root file, and lower versions are migrated.

containerd 2.3.0-2.3.4 also refuse a drop-in whose version is higher than the root file's (added in 2.3.0,
reverted after 2.3.4). Version 3 and 4 files only run on containerd 2.x; for version 1 and 2 the runbook applies the 1.x rule, the one that
can lose a runtime, so that anything it accepts also holds under 2.x.

All paths are resolved under the target root: an import of /etc/containerd/conf.d/*.toml means
<root>/etc/containerd/conf.d/*.toml.
"""

from __future__ import annotations

import copy
import fnmatch
import posixpath
from dataclasses import dataclass, field
from typing import NamedTuple

from runbook_lib.fs import bounded_read
from runbook_lib.findings.errors import ConfigError
from runbook_lib.fs.safe_write import read_bytes
from runbook_lib.fs.target import Target
from runbook_lib.fs.tomldoc import copy_data
from runbook_lib.containerd.layout import scan
from runbook_lib.containerd.load import TomlFile, load_toml
from runbook_lib.containerd.reads_2x import read_as
from runbook_lib.containerd.versions import detect_version, of, read_by

MERGE_1X = "containerd-1.x"
MERGE_2X = "containerd-2.x"


class ImportCycle(NamedTuple):
    """An `imports` entry that leads back to a file already read on the way to it (or to its own file)."""
    importer: str              # the file whose entry it is
    entry: str                 # the entry as written (a glob: the glob)
    target: str                # the file it leads back to, as containerd names it
    chain: tuple[str, ...]     # the files from the main one to the importer, then the target again


@dataclass
class Effective:
    main: TomlFile
    files: list[TomlFile]                 # load order, main first
    data: dict
    version: int
    merge: str
    missing_imports: list[str] = field(default_factory=list)
    # (importing file, entry as written, what it matches from that file's folder): a relative glob, which
    # containerd before 1.6.29 / 1.7.16 expands from its working directory instead (see _resolve_imports)
    relative_globs: list[tuple[str, str, list[str]]] = field(default_factory=list)
    # each import back to a file on its own chain, which containerd skips (see the module's docstring)
    import_cycles: list["ImportCycle"] = field(default_factory=list)

    def owner_of_plugin(self, plugin_id: str) -> TomlFile:
        """The file whose table containerd uses for a plugin (1.x: the last one that has it)."""
        owner = self.main
        for f in self.files:
            if plugin_id in (f.data.get("plugins") or {}):
                owner = f
        return owner

    def file(self, lab_path: str) -> TomlFile | None:
        return next((f for f in self.files if f.lab_path == lab_path), None)


def read_version(data: dict, *, path: str, empty: bool, text: str | None = None) -> int:
    """The version whose table paths containerd reads a config's data at (its version line, then reads_2x.read_as:
    AKS's version 2 with 2.x tables is read as 3). The effective config and the check cells (Run.version) alike."""
    return read_as(data, detect_version(data, path=path, empty=empty, text=text))


def load_effective(target: Target, config_lab_path: str, *, overlay: dict[str, bytes] | None = None,
                   merge: str | None = None) -> Effective:
    """Read the main config and its imports; ``overlay`` holds planned contents that are not on disk yet."""
    overlay = overlay or {}

    def read(lab_path: str) -> bytes | None:
        if lab_path in overlay:
            return overlay[lab_path]
        return read_bytes(target.resolve(lab_path), shown=lab_path)

    raw = read(config_lab_path)
    if raw is None:
        raise ConfigError.of("config.unreadable.config_file_does_not", path=config_lab_path, config_lab_path=config_lab_path)
    main = load_toml(raw, config_lab_path, target.shell_path(config_lab_path))
    version = read_version(main.data, path=config_lab_path, empty=main.empty, text=main.text)
    merge = merge or (MERGE_2X if of(version).merges_key_by_key else MERGE_1X)
    files, missing, relative_globs, cycles = [main], [], [], []
    data = copy_data(main.data)  # tomllib's data: tables and arrays new, values shared (~3x copy.deepcopy)
    loaded = {config_lab_path}  # containerd's guard: every file once, by its cleaned path, the main file first
    parent_of: dict[str, str | None] = {config_lab_path: None}  # who imported each file read: its chain back
    pending = _imports_of(target, config_lab_path, main.data, overlay, relative_globs)
    while pending:
        importer, item, path = pending.pop(0)
        if path in loaded:
            chain = _chain(parent_of, importer)
            if path in chain:  # back to itself or to a file on the way to it
                cycles.append(ImportCycle(importer, item, path, tuple(reversed(chain)) + (path,)))
            continue
        loaded.add(path)
        parent_of[path] = importer
        raw = read(path)
        if raw is None:
            missing.append(path)
            continue
        f = load_toml(raw, path, target.shell_path(path))
        if "version" in f.data:  # a drop-in's version is read like the main file's (an error names its line)
            detect_version(f.data, path=path, empty=f.empty, text=f.text)
        if merge == MERGE_2X and f.data.get("version", 0) > version:
            high, root = read_by(f.data["version"]), read_by(version)
            raise ConfigError.of("config.unreadable.drop_s_version_higher", path=path, line=_top_line(f.text, "version"), high=high, root=root, version=version)
        files.append(f)
        data = (_merge_1x if merge == MERGE_1X else _merge_2x)(data, f.data)
        pending += _imports_of(target, path, f.data, overlay, relative_globs)
    if merge == MERGE_1X and "version" in data:  # 1.x: a non-zero version of a later file wins; 0 means 1
        version = detect_version({"version": data["version"]}, path=config_lab_path, empty=False)
    return Effective(main, files, data, version, merge, missing, relative_globs, cycles)


def _chain(parent_of: dict[str, str | None], path: str | None) -> list[str]:
    """``path`` and every file on the way to it from the main file (who imported whom)."""
    out = []
    while path is not None and path not in out:
        out.append(path)
        path = parent_of.get(path)
    return out


def _imports_of(target: Target, parent: str, data: dict, overlay: dict[str, bytes],
                relative_globs: list | None = None) -> list[tuple[str, str, str]]:
    """(importing file, entry as written, the path it names) for each file a file imports (_resolve_imports)."""
    return [(parent, item, path) for item, path in _resolve_imports(target, parent, data, overlay, relative_globs)]


def _top_line(text: str, key: str) -> int | None:
    kv = scan(text).keyvalue((key,))
    return kv.line + 1 if kv is not None and kv.table == () else None


def _resolve_imports(target: Target, parent: str, data: dict, overlay: dict[str, bytes],
                     relative_globs: list | None = None) -> list[tuple[str, str]]:
    """containerd's resolveImports since 1.6.29 / 1.7.16 (commit 0f2068a70, "Fix config import relative path
    glob"): a relative entry is joined to the importing file's folder, then expanded when it has a `*` (only
    `*` makes containerd glob). Before those releases (Debian 12's 1.6.20 among them) a relative glob was
    expanded from containerd's working directory, `/` under systemd: such entries are recorded in
    ``relative_globs`` so that the diagnosis can say the two readings differ. Each path is cleaned as Go's
    filepath.Join cleans it (`conf.d/../config.toml` is `config.toml`): (entry as written, path) pairs."""
    imports = data.get("imports") or []
    if not isinstance(imports, list) or not all(isinstance(i, str) for i in imports):
        raise ConfigError.of("config.unreadable.imports_must_array_strings", path=parent)
    out = []
    for item in imports:
        path = import_path(parent, item)
        if "*" in path:
            matches = _glob(target, path, overlay)
            if not posixpath.isabs(item) and relative_globs is not None:
                relative_globs.append((parent, item, matches))
            out += [(item, m) for m in matches]
        else:
            out.append((item, path))
    return out


def import_path(parent: str, item: str) -> str:
    """The path an `imports` entry names, as containerd's resolveImports makes it: the entry cleaned, joined to the
    importing file's folder when relative, and cleaned again (Go's filepath.Join cleans its result)."""
    path = posixpath.normpath(item)
    if not path.startswith("/"):
        path = posixpath.normpath(posixpath.join(posixpath.dirname(parent), path))
    return "/" + path.lstrip("/")  # normpath keeps a leading '//' (POSIX); Go's Clean does not


def _glob(target: Target, pattern: str, overlay: dict[str, bytes]) -> list[str]:
    """Glob in the last component, as containerd's imports use it (Go's filepath.Glob sorts the matches)."""
    folder, pat = posixpath.split(pattern)
    host = target.resolve(folder)
    # at most MAX_FILES matches, or a finding
    names = set(bounded_read.names_in(host, folder, lambda n: fnmatch.fnmatchcase(n, pat)) if host.is_dir() else [])
    names |= {posixpath.basename(p) for p in overlay if posixpath.dirname(p) == folder
              and fnmatch.fnmatchcase(posixpath.basename(p), pat)}
    return [posixpath.join(folder, n) for n in sorted(names)]


# Top-level maps whose entries containerd replaces whole (1.x also does this for `plugins`).
_REPLACED_MAPS = ("stream_processors", "proxy_plugins", "timeouts")


def _merge_1x(to: dict, frm: dict) -> dict:
    out = copy.deepcopy(to)
    for k, v in frm.items():
        if k == "plugins" and isinstance(v, dict):
            out.setdefault("plugins", {})
            for pk, pv in v.items():
                out["plugins"][pk] = copy.deepcopy(pv)
        elif k in _REPLACED_MAPS and isinstance(v, dict):
            out.setdefault(k, {}).update(copy.deepcopy(v))
        elif isinstance(v, list):
            out[k] = list(out.get(k) or []) + copy.deepcopy(v)
        elif isinstance(v, dict):
            out[k] = _merge_struct(out.get(k) or {}, v)
        elif not _is_zero(v):
            out[k] = v
    return out


def _merge_struct(to: dict, frm: dict) -> dict:
    out = copy.deepcopy(to)
    for k, v in frm.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge_struct(out[k], v)
        elif not _is_zero(v):
            out[k] = copy.deepcopy(v)
    return out


def _merge_2x(to: dict, frm: dict) -> dict:
    out = copy.deepcopy(to)
    for k, v in frm.items():
        if k == "version":
            continue  # the root file's version rules; lower drop-ins are migrated up to it
        if k in _REPLACED_MAPS and isinstance(v, dict):
            out.setdefault(k, {}).update(copy.deepcopy(v))
        elif isinstance(v, list) and k in ("imports", "disabled_plugins", "required_plugins"):
            out[k] = list(out.get(k) or []) + [i for i in v if i not in (out.get(k) or [])]
        elif isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _deep(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def _deep(to: dict, frm: dict) -> dict:
    out = copy.deepcopy(to)
    for k, v in frm.items():
        out[k] = _deep(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else copy.deepcopy(v)
    return out


def _is_zero(v) -> bool:
    return v in ("", 0) and not isinstance(v, bool) or v is False


def locate(eff: "Effective", path: tuple[str, ...]) -> tuple[str, int | None]:
    """(file, 1-based line) where a table or key is written; the last file wins, as in the merge."""
    found = (eff.main.lab_path, None)
    for f in eff.files:
        layout = scan(f.text)
        for h in layout.headers:
            if h.path == path:
                found = (f.lab_path, h.line + 1)
        kv = layout.keyvalue(path)
        if kv is not None:
            found = (f.lab_path, kv.line + 1)
    return found
