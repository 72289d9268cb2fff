"""What apply changed on the node, kept on the node (<root>/var/lib/nvidia-runtime-runbook/applied.json), so that
mode=remove undoes exactly that and nothing else.

For every file a run writes: its bytes before the first run that wrote it (none: the run created it) and the
sha256 of each version the last run writes (config.toml twice on a fresh root: step 1's copy of the base, then
step 2's edit). mode=remove gives a file that still holds one of those versions its original back, byte for byte
(the previous values of every key the run corrected come back with it), or removes the file the run created. A
file changed since by someone else is left to the table-by-table removal (containerd/remove.py), a file that holds
its bytes from before (nothing of a run is in it) is only forgotten, and a file no run wrote is never touched: on
a node without a record, remove takes nothing out.

The record is written once, before an apply run's first write, with every write the run has planned (the
preflight plans them all before anything is written): so a run stopped at any point, even between a file and
its record, has recorded everything it wrote, and its writes cost no record write each (a file, its fsync,
the folder's fsync: 8 of them a run, half of the run's fsyncs).
"""

from __future__ import annotations

import base64
import json
import posixpath
from dataclasses import dataclass

from runbook_lib.fs.safe_write import WritePlan, commit, ensure_dir, plan_write, read_bytes, sha256
from runbook_lib.fs.target import Target
from runbook_lib.fs.safe_write import sync_folder
from runbook_lib.findings.errors import RunbookError

RECORD = "/var/lib/nvidia-runtime-runbook/applied.json"
FORMAT = 1


@dataclass
class Entry:
    before: bytes | None   # the file's bytes before any run wrote it; None: a run created it
    after_sha256: str      # what the last run writes last
    written_sha256: tuple[str, ...] = ()  # every version the last run writes, in order (a stopped run leaves one)

    def holds_a_runs_bytes(self, current: bytes | None) -> bool:
        return current is not None and sha256(current) in (self.after_sha256, *self.written_sha256)

    def to_json(self) -> dict:
        before = None if self.before is None else base64.b64encode(self.before).decode()
        return {"before": before, "after_sha256": self.after_sha256, "written_sha256": list(self.written_sha256)}


def load(target: Target) -> dict[str, Entry] | None:
    """The record, or None when no run ever wrote on this root (or the record is not one this version reads)."""
    raw = read_bytes(target.resolve(RECORD))
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        files = data["files"] if data.get("format") == FORMAT else None
        return {lab: Entry(None if e["before"] is None else base64.b64decode(e["before"]), e["after_sha256"],
                           tuple(e.get("written_sha256") or ()))  # a record from before the list: its last version
                for lab, e in files.items()} if isinstance(files, dict) else None
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _plan(target: Target, entries: dict[str, Entry], folders: list[str] | None = None,
          runtimes: list[str] | None = None) -> WritePlan:
    body = {"format": FORMAT, "files": {lab: e.to_json() for lab, e in sorted(entries.items())}}
    folders = load_folders(target) if folders is None else folders
    runtimes = load_runtimes(target) if runtimes is None else runtimes
    if folders:
        body["folders"] = folders
    if runtimes:
        body["runtimes"] = runtimes
    return plan_write(target, RECORD, (json.dumps(body, indent=1) + "\n").encode())


def load_folders(target: Target) -> list[str]:
    """The folders runs made (lab paths, outermost first), which remove takes away once they are empty."""
    return _names(target, "folders")


def load_runtimes(target: Target) -> list[str]:
    """The runtimes apply runs added (by name, in the order they were added; a run with variants adds its
    variants as "<name>/<variant>"): remove by name takes out one of them (with its variants) and leaves the
    others. A record from before this list has none: remove takes out everything."""
    return _names(target, "runtimes")


def runtime_groups(target: Target) -> dict[str, list[str]]:
    """The recorded runtimes by the name a run was asked for: {"nvidia": ["nvidia-cdi", "nvidia-legacy"]}."""
    groups: dict[str, list[str]] = {}
    for entry in load_runtimes(target):
        name, _, variant = entry.partition("/")
        groups.setdefault(name, [])
        if variant:
            groups[name].append(variant)
    return groups


def _names(target: Target, key: str) -> list[str]:
    try:
        data = json.loads(read_bytes(target.resolve(RECORD)) or b"{}")
    except ValueError:
        return []
    names = data.get(key) if isinstance(data, dict) else None
    return [f for f in names if isinstance(f, str)] if isinstance(names, list) else []


def forget_runtime(target: Target, name: str, written: list[str]) -> None:
    """After remove by name: the runtime is no longer the runbook's to remove, and each file that remove wrote
    now holds the bytes the runbook's remaining runtimes are in (the last run's bytes, for the next remove)."""
    entries = load(target)
    if entries is None:
        return
    for lab in written:
        entry = entries.get(lab)
        current = read_bytes(target.resolve(lab))
        if entry is not None and current is not None:
            entries[lab] = Entry(entry.before, sha256(current), (sha256(current),))
    write = _plan(target, entries, runtimes=[n for n in load_runtimes(target) if n.partition("/")[0] != name])
    if write.changed:
        commit(write, backup=False)


def created_by_a_run(entries: dict[str, Entry] | None, lab: str, current: bytes | None) -> bool:
    """The file did not exist before the first run that wrote it, and holds a run's bytes: the runbook can make
    those bytes again, so they need no backup (a backup of a file the runbook created is clutter)."""
    entry = (entries or {}).get(lab)
    return entry is not None and entry.before is None and entry.holds_a_runs_bytes(current)


def planned(target: Target, writes: list, folders: list[str] = (), runtimes: list[str] = ()) -> WritePlan:
    """The record as an apply run with these planned ``writes`` (lab_path, old, new, in the order the run makes
    them) writes it before its first write. A file's ``before`` is its bytes before the first run that wrote
    it: a later run keeps it."""
    entries = load(target) or {}
    by_file: dict[str, tuple[bytes | None, list[str]]] = {}
    for w in writes:
        by_file.setdefault(w.lab_path, (w.old, []))[1].append(sha256(w.new))
    for lab, (old, versions) in by_file.items():
        first = entries.get(lab)
        entries[lab] = Entry(first.before if first else old, versions[-1], tuple(versions))
    made = load_folders(target)
    made += [f for f in folders if f not in made]
    names = load_runtimes(target)
    names += [n for n in runtimes if n not in names]
    return _plan(target, entries, made, names)


def folders_to_make(target: Target) -> list[str]:
    """The record's folders that do not exist yet (lab paths, outermost first)."""
    return ensure_dir(target, posixpath.dirname(RECORD), dry_run=True)


def note_planned(target: Target, writes: list, folders: list[str] = (), runtimes: list[str] = ()) -> None:
    """Before an apply run's first write: every write it plans (planned()), and the folders it makes
    (``folders``, the plans' and the record's own), so that remove can take those away too."""
    load(target)  # a record that cannot be read is said as such, before its folders are looked at
    write = planned(target, writes, [*folders_to_make(target), *folders], runtimes)
    if write.changed:
        ensure_dir(target, posixpath.dirname(RECORD))
        commit(write, backup=False)


def untouched(target: Target, entries: dict[str, Entry]) -> list[str]:
    """The recorded files that hold their bytes from before any run (a file the run created and that is gone, or
    one the run never reached because it stopped first): nothing of a run is in them to undo."""
    return [lab for lab, entry in entries.items() if read_bytes(target.resolve(lab)) == entry.before]


def restorable(target: Target, entries: dict[str, Entry]) -> dict[str, bytes | None]:
    """The files that still hold exactly what the last run wrote: lab path -> the bytes to give back (None: the
    run created the file, so it goes)."""
    out = {}
    for lab, entry in entries.items():
        current = read_bytes(target.resolve(lab))
        if entry.holds_a_runs_bytes(current) and current != entry.before:
            out[lab] = entry.before
    return out


def forget(target: Target, done: list[str]) -> None:
    """After remove: drop the entries of the files it gave back; the record goes with the last one."""
    entries = load(target)
    if entries is None:
        return
    for lab in done:
        entries.pop(lab, None)
    host = target.resolve(RECORD)
    if entries:
        write = _plan(target, entries)
        if write.changed:
            commit(write, backup=False)
    elif host.exists():
        folders = load_folders(target)
        host.unlink()
        sync_folder(host.parent)  # the removal survives a power cut, as every write does
        remove_empty_folders(target, folders)


def remove_empty_folders(target: Target, folders: list[str]) -> list[str]:
    """The folders runs made, innermost first, each only when it is empty (what someone put in one keeps it, and
    the folders above it)."""
    removed = []
    for lab in sorted(set(folders), key=lambda f: f.count("/"), reverse=True):
        try:
            host = target.resolve(lab)
            host.rmdir()
        except (OSError, RunbookError):
            continue
        sync_folder(host.parent)
        removed.append(lab)
    return removed
