"""plan -> diff -> backup -> atomic write: the one way any file under the root changes.

A plan is computed in memory first, so check mode and the notebook's diff see exactly what apply mode would
write. A commit never opens the target for writing: it writes a temporary file in the same folder, fsyncs it,
keeps the old file's mode (and owner), backs the old bytes up under a name that never collides, and renames
the temporary file over the target. A crash at any moment leaves the old file or the new one, never a mix.
"""

from __future__ import annotations

import difflib
import errno
import hashlib
import os
import stat
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from runbook_lib.fs import bounded_read, os_errors
from runbook_lib.findings.catalog import say
from runbook_lib.findings.errors import WriteError
from runbook_lib.fs.target import Target
from runbook_lib.fs.writable import folder_blocked, unwritable  # planned there; the write is guarded here too

TMP_PREFIX = ".runbook-tmp."
BACKUP_INFIX = ".runbook-backup-"  # never ends in .toml/.yaml, so no import glob or CDI scan picks it up


def sha256(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def read_bytes(path: Path, kind: str | None = None, shown: str | None = None) -> bytes | None:
    """The file's bytes, or None when it does not exist, read within its kind's size limit (runbook_lib.fs.bounded_read,
    the one reader of a root's files). A folder (or a FIFO, a device, a socket: reading one could block forever)
    where a file should be is an error, and so is every other OS error (EACCES, EIO, ...): each a finding that
    names the file as ``shown`` (its path under the root; runbook_lib.fs.os_errors), never a traceback."""
    at = os_errors.shown_path(path, shown)
    try:
        return bounded_read.read(path, kind, shown)
    except bounded_read.SpecialFile:
        raise WriteError.of("write.failed.not_a_regular_file", path=at, at=at) from None
    except NotADirectoryError:  # a file where one of its folders should be (/etc/cdi a file, not a folder)
        blocker = next(p for p in reversed(path.parents) if p.exists() and not p.is_dir())
        shown_blocker = _shown_parent(path, shown, blocker)
        raise WriteError.of("write.failed.file_stands_where_folder_2", path=shown_blocker, name=path.name,
                            blocker=shown_blocker) from None
    except IsADirectoryError:
        raise WriteError.of("write.failed.folder_stands_where_file", path=at, at=at) from None
    except OSError as exc:  # EACCES, EIO, ELOOP, ENAMETOOLONG, ...: the kernel's answer, said for this file
        raise os_errors.read_error(exc, path, shown) from None


def _shown_parent(host: Path, shown: str | None, parent: Path) -> str:
    """A folder on the way to ``host``, named as the user knows it: under the root when ``shown`` is the lab path
    of ``host`` (the host path then ends with it), else the host path."""
    if shown and str(host).endswith(shown) and shown.startswith("/"):
        prefix = str(host)[: len(str(host)) - len(shown)]
        if str(parent).startswith(prefix + "/"):
            return str(parent)[len(prefix):]
    return str(parent)


@dataclass
class WritePlan:
    target: Target
    lab_path: str
    host_path: Path
    old: bytes | None
    new: bytes
    mode: int | None = None  # for new files; an existing file keeps its own mode

    @property
    def changed(self) -> bool:
        return self.old != self.new

    def diff(self) -> str:
        old = [] if self.old is None else self.old.decode("utf-8", "replace").splitlines(keepends=True)
        new = self.new.decode("utf-8", "replace").splitlines(keepends=True)
        lines = difflib.unified_diff(old, new, fromfile=f"a{self.lab_path}", tofile=f"b{self.lab_path}")
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


@dataclass
class Committed:
    host_path: Path
    backup: Path | None
    sha256: str | None
    written: bool = True
    notes: list[str] = field(default_factory=list)


def plan_write(target: Target, lab_path: str, new: bytes, *, mode: int | None = None) -> WritePlan:
    host = target.resolve(lab_path)
    return WritePlan(target, lab_path, host, read_bytes(host, shown=lab_path), new, mode)


def commit(plan: WritePlan, *, backup: bool = True, keep_backups: int | None = None) -> Committed:
    """Write the plan atomically. An unchanged plan writes nothing at all.

    Another writer's edit is never lost: the file is compared with the plan before anything is written, and again
    once the temporary file is synced and the backup made, immediately before the rename (its bytes, and its
    inode, size and mtime_ns; for a new file, that none has appeared). An edit seen either time stops the
    write: the edit stays in place, and the temporary file and the backup made for it are taken away. What remains is the time between the last look and the
    rename itself (docs/GUARANTEES.md, 1)."""
    if not plan.changed:
        return Committed(plan.host_path, None, sha256(plan.new), written=False)
    problem = unwritable(plan)
    if problem:
        raise problem
    host = plan.host_path
    seen = _identity(host)
    current = read_bytes(host, shown=plan.lab_path)
    if current != plan.old:
        raise _changed(plan, "write.failed.file_changed_after_plan")
    backup_path = None
    try:
        st = os.stat(host) if current is not None else None
        mode = stat.S_IMODE(st.st_mode) if st else (plan.mode if plan.mode is not None else 0o644)
        tmp = _write_temp(host.parent, host.name, plan.new, mode, st)
        try:
            if st is not None:
                _copy_xattrs(host, tmp)
            backup_path = _write_backup(host, current, mode) if (backup and current is not None) else None
            _pause_before_rename(host)
            if read_bytes(host, shown=plan.lab_path) != current or _identity(host) != seen:  # the last look: an edit made meanwhile
                _drop(backup_path)
                backup_path = None
                raise _changed(plan, "write.failed.file_changed_while_writing")
            os.replace(tmp, host)
        finally:
            if os.path.lexists(tmp):
                os.unlink(tmp)
    except WriteError:
        raise
    except OSError as exc:
        _drop(backup_path)
        raise os_errors.write_error(exc, host, plan.lab_path) from exc
    _fsync_dir(host.parent)
    if backup_path is not None and keep_backups is not None:
        prune_backups(host, keep_backups)
    return Committed(host, backup_path, sha256(plan.new))


def _backup_order(host: Path, path: Path) -> tuple[str, int] | None:
    """A backup's place in time from its name (<name>.runbook-backup-<UTC stamp>[.<n>]), or None if it is not one."""
    prefix = f"{host.name}{BACKUP_INFIX}"
    if not path.name.startswith(prefix):
        return None
    stamp, _, n = path.name[len(prefix):].partition(".")
    if len(stamp) != 16 or (n and not n.isdigit()):
        return None
    return stamp, int(n or 0)


def prune_backups(host: Path, keep: int) -> list[Path]:
    """The rule for a file's backups (docs/GUARANTEES.md, 2): its oldest backup (the bytes from before the first
    run that changed it) always stays, and so do its ``keep`` newest; the others are removed. Only names the
    runbook makes, beside the file, are ever looked at."""
    found = []
    for entry in host.parent.iterdir():
        order = _backup_order(host, entry)
        if order is not None and entry.is_file() and not entry.is_symlink():
            found.append((order, entry))
    found.sort()
    backups = [entry for _, entry in found]
    drop = backups[1:-keep] if keep > 0 else backups[1:]
    removed = []
    for entry in drop:
        try:
            entry.unlink()
        except OSError:
            continue
        removed.append(entry)
    if removed:
        _fsync_dir(host.parent)
    return removed


def _identity(host: Path) -> tuple | None:
    """What a rename or an in-place write by another program changes: the inode, the size and the mtime."""
    try:
        st = os.stat(host)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _changed(plan: WritePlan, code: str) -> WriteError:
    lab = plan.lab_path  # the path the user knows (the host path is under the root)
    return WriteError.of(code, path=lab, lab=lab)


def _drop(backup_path: Path | None) -> None:
    """A backup made for a write that did not happen: it holds nothing the file does not hold."""
    if backup_path is not None:
        try:
            os.unlink(backup_path)
        except OSError:
            pass


PAUSE_ENV = "RUNBOOK_TEST_PAUSE_BEFORE_RENAME"  # a test hook: a folder, see _pause_before_rename


def _pause_before_rename(host: Path) -> None:
    """A test hook that makes the window between the plan's compare and the rename as wide as a test needs:
    with RUNBOOK_TEST_PAUSE_BEFORE_RENAME set to a folder, a write whose file's name is in that folder's
    ``files`` (one a line) writes ``paused`` (the file's path) there and waits until ``go`` exists (at most
    a minute), so that a test edits the file in the window, even through plain papermill."""
    folder = os.environ.get(PAUSE_ENV)
    if not folder:
        return
    signal = Path(folder)
    try:
        names = (signal / "files").read_text().split()
    except OSError:
        return
    if host.name not in names:
        return
    (signal / "paused.part").write_text(str(host))
    os.replace(signal / "paused.part", signal / "paused")  # whole when it appears: the test reads it at once
    deadline = time.monotonic() + 60
    while not (signal / "go").exists() and time.monotonic() < deadline:
        time.sleep(0.01)


def sync_folder(folder: Path) -> None:
    """A folder's entries flushed to disk: a folder just created under it, a file renamed into it."""
    _fsync_dir(folder)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_temp(folder: Path, name: str, data: bytes, mode: int, st: os.stat_result | None) -> str:
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f"{TMP_PREFIX}{name}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            if st is not None and os.geteuid() == 0:
                os.fchown(fh.fileno(), st.st_uid, st.st_gid)
            os.fsync(fh.fileno())
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def _copy_xattrs(src: Path, dst: str) -> None:
    """Keep extended attributes across the rename, above all the SELinux label of /etc/containerd/config.toml
    on RHEL-like nodes (a new file would get its folder's default label). Best effort: a file system or a
    caller that cannot set one keeps the folder's default, as a plain `cp` would."""
    try:
        names = os.listxattr(src, follow_symlinks=False)
    except OSError:
        return
    for name in names:
        try:
            os.setxattr(dst, name, os.getxattr(src, name, follow_symlinks=False), follow_symlinks=False)
        except OSError:
            pass


def _atomic_replace(host: Path, data: bytes, mode: int, st: os.stat_result | None) -> None:
    tmp = _write_temp(host.parent, host.name, data, mode, st)
    try:
        if st is not None:
            _copy_xattrs(host, tmp)
        os.replace(tmp, host)
    except BaseException:
        os.unlink(tmp)
        raise
    _fsync_dir(host.parent)


def write_file(path: Path, data: bytes | str, *, mode: int = 0o644) -> None:
    """A file the runbook makes outside a target root (the archive's manifest.json and run.html, the grading
    folder's pages and grades): the same temporary file, fsync, rename and fsync of the folder as a commit, so a
    crash or a power cut leaves the old file or the new one, and a written one stays written. No plan, no
    backup: these files are the runbook's own, made again by the next run."""
    path = Path(path)
    _atomic_replace(path, data.encode("utf-8") if isinstance(data, str) else data, mode, None)


def write_files(files: dict[Path, bytes | str], *, mode: int = 0o644) -> None:
    """Many files the runbook makes outside a target root at once (a class's grading folder: two files a
    student): each written to a temporary file and renamed over its name, as write_file does, so a reader sees
    the old file or the new one; then the whole file system flushed to disk once (syncfs), instead of two
    fsyncs a file. When this returns, every file is written and stays written."""
    folders: set[Path] = set()
    for path, data in files.items():
        path = Path(path)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f"{TMP_PREFIX}{path.name}.")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data.encode("utf-8") if isinstance(data, str) else data)
                os.fchmod(fh.fileno(), mode)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        folders.add(path.parent)
    devices: dict[int, Path] = {}
    for folder in folders:  # one folder a file system
        devices.setdefault(os.stat(folder).st_dev, folder)
    for folder in devices.values():
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            synced = _syncfs(fd)
        finally:
            os.close(fd)
        if not synced:
            os.sync()  # no syncfs here: every file system
            return


def _syncfs(fd: int) -> bool:
    """Linux's syncfs(2): every write on the file system holding ``fd`` flushed to disk. False where there is none."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).syncfs(fd) == 0
    except (OSError, AttributeError):
        return False


def sync_in_place(path: Path) -> None:
    """A file another program wrote in place (papermill's executed notebook, rewritten during the run so that a
    killed run still leaves its evidence): its bytes and its folder's entry flushed to disk once it is done."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    _fsync_dir(Path(path).parent)


def backup_name(host: Path, when: float | None = None) -> str:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(when))
    return f"{host.name}{BACKUP_INFIX}{stamp}"


def _write_backup(host: Path, data: bytes, mode: int) -> Path:
    """Keep the old bytes under a fresh name; os.link never replaces an existing backup."""
    tmp = _write_temp(host.parent, host.name, data, mode, None)
    try:
        base = backup_name(host)
        for n in range(0, 10_000):
            candidate = host.parent / (base if n == 0 else f"{base}.{n}")
            try:
                os.link(tmp, candidate)
            except FileExistsError:
                continue
            _fsync_dir(host.parent)
            return candidate
        raise OSError(errno.EEXIST, "no free backup name", str(host))
    finally:
        os.unlink(tmp)


def sweep_stale_temps(folder: Path) -> list[Path]:
    """Remove temporary files a killed run left behind (only ours, recognised by their prefix)."""
    removed = []
    if folder.is_dir():
        for entry in folder.iterdir():
            if entry.name.startswith(TMP_PREFIX) and entry.is_file() and not entry.is_symlink():
                try:
                    entry.unlink()
                except OSError:
                    continue  # a read-only or immutable folder: the plan says so; a leftover is harmless meanwhile
                removed.append(entry)
    return removed


def ensure_dir(target: Target, lab_path: str, *, dry_run: bool = False) -> list[str]:
    """Create a folder (and its parents) under the root; returns the lab paths it created. A folder at the end of
    a symbolic link whose target does not exist under the root (a link out of the root, read inside it, or a
    dangling one) is never made: the link is someone's, and so is where it goes; the error shows the link."""
    for _ in range(20):
        try:
            return _ensure_dir(target, lab_path, dry_run)
        except _ParentGone:
            continue  # a folder above was removed meanwhile (another run's lock folder going): look again
    return _ensure_dir(target, lab_path, dry_run)


class _ParentGone(Exception):
    pass


def _ensure_dir(target: Target, lab_path: str, dry_run: bool) -> list[str]:
    created = []
    host, links = target.walk(lab_path)
    _refuse_missing_link_targets(target, lab_path, host, links)
    missing = []
    probe = host
    while not _exists(probe):
        missing.append(probe)
        probe = probe.parent
    try:
        is_folder = stat.S_ISDIR(probe.stat().st_mode)  # one look: a folder removed meanwhile is not a file
    except FileNotFoundError:
        raise _ParentGone() from None  # another run's lock folder went between the two looks: look again
    except OSError:
        is_folder = True  # a dangling link or a loop: what follows names it
    if not is_folder:
        shown = target.lab_path(probe)  # as the user knows it, never the grader's host path
        raise WriteError.of("write.failed.file_stands_where_folder", path=shown, probe=shown)
    _refuse_names_too_long(target, probe, missing)
    made: list[Path] = []
    for folder in reversed(missing):
        if not dry_run:
            target.ensure_inside(folder.parent)
            try:
                folder.mkdir(mode=0o755, exist_ok=True)
            except FileNotFoundError:
                _unmake(made)
                raise _ParentGone() from None
            except OSError as exc:
                _unmake(made)  # a chain stopped halfway (ENOSPC) leaves none of its folders behind
                raise _mkdir_failed(target, folder, exc) from None
            made.append(folder)
        created.append(target.lab_path(folder))
    return created


def _unmake(made: list[Path]) -> None:
    for folder in reversed(made):
        try:
            folder.rmdir()
        except OSError:
            return


def _refuse_missing_link_targets(target: Target, lab_path: str, host: Path, links: list) -> None:
    for link, text in links:
        if _exists(target.resolve(link)):
            continue
        raise WriteError(say("target.goes_through_symbolic_links", lab_path=lab_path, shown=f"{link} -> {text}",
                             host=target.lab_path(host), folder=target.lab_path(target.resolve(link))),
                         say("writable.folder_link_fix", link=link), path=link)


def _exists(path: Path) -> bool:
    """Path.exists, where a name too long to exist (ENAMETOOLONG) does not exist: _refuse_names_too_long says so."""
    try:
        return path.exists()
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            return False
        raise


def _refuse_names_too_long(target: Target, existing: Path, missing: list[Path]) -> None:
    """Every folder to make has a name the file system can hold (NAME_MAX, 255 bytes on ext4, xfs, tmpfs), or
    none is made: a plan that would stop halfway leaves folders behind for nothing."""
    try:
        limit = os.pathconf(existing, "PC_NAME_MAX")
    except (OSError, ValueError):
        return
    for folder in missing:
        if len(os.fsencode(folder.name)) > limit:
            lab = target.lab_path(folder)
            raise WriteError.of("write.failed.name_too_long", path=lab, lab=lab, size=len(os.fsencode(folder.name)),
                                limit=limit)


def _mkdir_failed(target: Target, folder: Path, exc: OSError) -> WriteError:
    blocked = folder_blocked(target, folder.parent, replacing=False)
    if blocked is not None:  # a read-only mount or chattr +i, named with its fix
        return blocked
    lab = target.lab_path(folder)
    return WriteError.of("write.failed.could_not_create_folder", path=lab, value=exc.strerror or exc, lab=lab,
                         parent=target.lab_path(folder.parent))


def retire(target: Target, lab_path: str, *, backup: bool = True, keep_backups: int | None = None) -> Path | None:
    """Move a file out of the way, keeping its bytes as a backup (the same never-colliding name); returns the
    backup, or None when there was no file (or none was asked for: a file the runbook made, holding the bytes
    it wrote, is only removed). Used for a report that a failed run must not leave standing, and by remove."""
    host = target.resolve(lab_path)
    data = read_bytes(host)
    if data is None:
        return None
    target.ensure_inside(host.parent)
    kept = _write_backup(host, data, stat.S_IMODE(os.stat(host).st_mode)) if backup else None
    os.unlink(host)
    _fsync_dir(host.parent)
    if kept is not None and keep_backups is not None:
        prune_backups(host, keep_backups)
    return kept
