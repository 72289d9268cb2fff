"""Writability, planned in one place: what cannot be written at all (a folder outside the root or one that will
not exist), and what even root cannot write (a read-only mount, an immutable or append-only file or folder,
chattr +i / +a, a file that is a mount point of its own, a full file system).

A run asks this while it plans, so a node whose /etc is read-only (or whose config.toml an administrator locked
with chattr +i) refuses before its first write, instead of creating folders in step 1 and failing in step 2.
"""

from __future__ import annotations

import fcntl
import os
import re
import sys
from pathlib import Path

from runbook_lib.findings.errors import RunbookError, WriteError
from runbook_lib.findings.messages import Msg
from runbook_lib.findings.problem import Problem
from runbook_lib.findings.catalog import say

FS_IOC_GETFLAGS = 0x80086601  # <linux/fs.h>; the flags are an int, read from the first four bytes
IMMUTABLE_FL, APPEND_FL = 0x10, 0x20


def _flags(path: Path) -> int:
    """The file's inode flags (lsattr), or 0 where the file system has none."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return 0
    try:
        return int.from_bytes(fcntl.ioctl(fd, FS_IOC_GETFLAGS, bytes(8))[:4], sys.byteorder)
    except OSError:
        return 0
    finally:
        os.close(fd)


def _read_only_mount(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _reason(path: Path, flags: int, shown: str) -> tuple[Msg, Msg] | None:
    """(what stops the write, its fix) for a file or folder, or None; ``shown`` names it as the user knows it
    (its path under the root, never the grader's host path)."""
    if flags & IMMUTABLE_FL:
        return (say("writable.immutable_attribute_chattr_i"),
                say("writable.look_attributes_lsattr_d", at=shown))
    if flags & APPEND_FL:
        return (say("writable.append_only_attribute_chattr"),
                say("writable.look_attributes_lsattr_d_2", at=shown))
    if _read_only_mount(path):
        return (say("writable.file_system_mounted_read"),
                say("writable.find_mount_findmnt_t", at=shown))
    return None


NIX_FIX = say("writable.nixos_generated_config_nix")


def _error(target, host: Path, kind: Msg, reason: tuple[Msg, Msg]) -> WriteError:
    lab = target.lab_path(host)
    what, fix = reason
    if lab.startswith("/nix/store/"):  # remounting the store read-write is never the fix
        fix = NIX_FIX
    return WriteError(say("writable.cannot_written_run_stops", kind=kind, lab=lab, what=what),
                      fix, path=lab)


_FOLDER = say("writable.folder")
_FILE = say("writable.file")


def folder_blocked(target, folder: Path, *, replacing: bool) -> WriteError | None:
    """Why nothing can be created in an existing folder (or, replacing=True, no entry in it renamed over or
    removed), or None. Permissions as such are left to the write: root writes through them."""
    flags = _flags(folder)
    if os.access(folder, os.W_OK) and not (replacing and flags & APPEND_FL):
        return None
    reason = _reason(folder, flags, target.lab_path(folder))
    if reason is None:
        reason = (say("writable.there_no_write_permission", folder=target.lab_path(folder)),
                  say("writable.run_root_correct_folder"))
    return _error(target, folder, _FOLDER, reason)


def _mount_points() -> set[str]:
    """Every mount point of this process's mount namespace (the fifth field of mountinfo, octal escapes undone)."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return set()
    return {re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), line.split()[4])
            for line in lines if len(line.split()) > 4}


def _bind_mounted(host: Path, shown: str) -> tuple[Msg, Msg] | None:
    """A file that is a mount point of its own (k3d's `-v config.toml.tmpl:...`, kind's extraMounts, a
    DaemonSet's single-file hostPath): rename(2) over it and unlink(2) fail with EBUSY."""
    if os.path.realpath(host) not in _mount_points():
        return None
    return (say("writable.mount_point_own_single"),
            say("writable.find_file_mount_comes", host=shown))


def file_blocked(target, host: Path) -> WriteError | None:
    """Why an existing file cannot be replaced by a rename or removed (its own attributes, a mount of its own),
    or None."""
    shown = target.lab_path(host)
    reason = _reason(host, _flags(host) & (IMMUTABLE_FL | APPEND_FL), shown) or _bind_mounted(host, shown)
    return None if reason is None else _error(target, host, _FILE, reason)


def nearest_existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def short_of_space(target, needs: list[tuple[Path, int, int]]) -> WriteError | None:
    """Why the planned writes would not fit: (folder, bytes, inodes) triples, each file in whole blocks and a
    block more for each new inode (a folder's first block, or the block its folder may grow by), summed
    per file system and compared with what a process may use of it: f_bavail and f_favail (f_bfree counts
    ext4's blocks reserved for root, which the kernel keeps for its own use first: a run counted on them can
    fail halfway). A full / or /var is a common node state."""
    totals: dict[int, list] = {}
    for folder, size, inodes in needs:
        probe = nearest_existing(folder)
        try:
            st, fs = os.stat(probe), os.statvfs(probe)
        except OSError:
            continue
        entry = totals.setdefault(st.st_dev, [probe, fs, 0, 0])
        entry[2] += -(-size // (fs.f_frsize or 4096)) + inodes  # a block for each new name: its folder may grow
        entry[3] += inodes
    for probe, fs, blocks, inodes in totals.values():
        free, files = fs.f_bavail, fs.f_favail
        if blocks <= free and (fs.f_files == 0 or inodes <= files):  # f_files 0: no inode limit (btrfs)
            continue
        need_kib, free_kib = blocks * fs.f_frsize // 1024, free * fs.f_frsize // 1024
        lab = target.lab_path(probe)
        return WriteError.of("write.failed.not_enough_disk_space", path=lab, lab=lab, need_kib=need_kib, inodes=inodes, free_kib=free_kib, files=files, probe=probe)
    return None


def unwritable(plan, *, will_exist: set[Path] = frozenset()) -> WriteError | None:
    """Why the planned file cannot be written (its folder is outside the root, or missing and not about to be
    created), or None. The plan asks this before any write, so a run that would fail here refuses instead."""
    parent = plan.host_path.parent
    plan.target.ensure_inside(parent)
    if parent.is_dir() or parent in will_exist:
        return None
    return WriteError(
        plan.target.explain_missing_parent(plan.lab_path),
        say("safe_write.make_link_point_file", lab_path=plan.target.shell_path(plan.lab_path))
        if plan.target.walk(plan.lab_path)[1] else
        say("safe_write.create_folder_then_run", parent=plan.target.shell_path(plan.target.lab_path(parent))),
        path=plan.lab_path)


def refusals(target, plan, will_exist: set[Path], *, writes: bool, after_refusal=None) -> list[Problem]:
    """A plan's writes that could not happen, as refusals now instead of errors halfway through the run:
    a link out of the root, a folder that will not exist (``will_exist``: the folders every plan so far, this
    one included, creates, resolved); in a mode that writes (``writes``) also what even root cannot write (the first such reason).
    ``after_refusal``: the number of an earlier step whose plan refused, so the folders it would have made are
    not in ``will_exist``: a folder missing for that reason only follows from its refusal, and says so (the
    step is blocked, and no fix names a folder the earlier step makes)."""
    out = []
    for write in plan.writes:
        if not write.changed:
            continue
        try:
            problem = unwritable(write, will_exist=will_exist)
        except RunbookError as exc:
            out.append(Problem.from_error(exc))
            continue
        if problem and after_refusal is not None and not target.walk(write.lab_path)[1]:
            out.append(Problem.of("depends.earlier", write.lab_path, step=after_refusal, what=problem.what))
        elif problem:
            out.append(Problem.from_error(problem))
    if writes:
        out += _root_cannot(target, plan, will_exist)
    return out


def _root_cannot(target, plan, will_exist: set) -> list[Problem]:
    """What even root cannot write (a read-only mount, chattr +i): refused now, not after step 1 has written."""
    found = []
    for lab in plan.dirs:
        host = target.resolve(lab)  # the step resolved it already: it cannot fail here
        if host.parent not in will_exist:
            found.append(folder_blocked(target, nearest_existing(host.parent), replacing=False))
    replaced = [(w.host_path, w.old is not None) for w in plan.writes if w.changed]
    for lab in plan.retire:
        try:
            replaced.append((target.resolve(lab), True))
        except RunbookError:
            continue  # a path that cannot be resolved is refused by the step itself
    for host, exists in replaced:
        if host.parent.is_dir():
            found.append(folder_blocked(target, host.parent, replacing=exists))
        if exists:
            found.append(file_blocked(target, host))
    return [Problem.from_error(e) for e in found if e is not None][:1]


def write_needs(write, *, backup: bool = True) -> list[tuple[Path, int, int]]:
    """What one changed file takes while it is written (fs/safe_write.py's commit), counted as if nothing were
    freed before the run ends: the temporary file that becomes the file (its bytes, an inode, a name), and for a
    file that exists its backup (the old bytes, an inode, a name). The old file's blocks are freed only after
    the rename, so they are never counted on."""
    folder = write.host_path.parent
    out = [(folder, len(write.new), 1)]
    if backup and write.old is not None:
        out.append((folder, len(write.old), 1))
    return out


def refuse_when_short_of_space(target, plans: list, extra: list | None = None) -> None:
    """All the planned writes of a run (``plans``, in step order) must fit on their file systems, or the first
    plan that writes refuses, instead of the run failing with ENOSPC after step 1 has created folders.
    Counted: every folder the plans make (an inode, a block), every write (write_needs), every file mode=remove
    retires (its backup), and ``extra``, what the run itself writes beside the plans (the record of what apply
    changes, with its folders: engine/run.py)."""
    needs, first = [], None
    for plan in plans:
        mine = [(target.resolve(d), 0, 1) for d in plan.dirs]  # its inode, and its first block
        mine += [n for w in plan.writes if w.changed for n in write_needs(w)]
        mine += [(w.host_path.parent, len(w.old or b""), 1) for w in plan.retired]
        if mine and first is None:
            first = plan
        needs += mine
    if first is None:
        return
    problem = short_of_space(target, needs + list(extra or []))
    if problem is not None:
        first.refusals.append(Problem.from_error(problem))
