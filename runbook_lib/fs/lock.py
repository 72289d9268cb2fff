"""One run at a time per root: an flock on <root>/run/lock/nvidia-runtime-runbook.lock.

The kernel drops an flock when its process dies, so a run killed with SIGKILL never leaves a lock that blocks
the next one. Check mode must not write anything, so it only takes a shared lock when the file already exists.

A run leaves no lock behind: apply removes the lock file while it still holds the lock, then the folders it made
for it (when empty), and releases it. A run that was waiting then holds a lock on a file that no longer has the
lock's name, sees that (its inode is not the name's), and takes the lock again on the file as it is now; so two
runs never both hold it. Only a run killed with SIGKILL leaves the file (and the kernel has released its lock).
"""

from __future__ import annotations

import errno
import fcntl
import os
import time
from pathlib import Path

from runbook_lib.findings.errors import LockTimeout, WriteError
from runbook_lib.findings.catalog import say
from runbook_lib.fs.safe_write import ensure_dir
from runbook_lib.fs.target import Target

LOCK_DIR = "/run/lock"
LOCK_NAME = "nvidia-runtime-runbook.lock"


class _Gone(Exception):
    """The lock file (or its folder) was removed between two looks: the run that held it is done."""


def _still_named(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    held = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (held.st_dev, held.st_ino)


class RootLock:
    def __init__(self, target: Target, *, shared: bool = False, timeout: float = 600.0):
        self.target = target
        self.shared = shared
        self.timeout = timeout
        self.fd: int | None = None
        self.path: Path | None = None
        self.made: list[str] = []  # the folders this lock made (lab paths), removed with it when empty

    def acquire(self) -> "RootLock":
        deadline = time.monotonic() + self.timeout
        while True:
            if self._try(deadline):
                return self

    def _try(self, deadline: float) -> bool:
        """One attempt: True once the lock is held on the file that has the lock's name (or, check mode, when
        there is no lock to wait for); False when the file was removed by the run that held it: try again."""
        # The folder is resolved inside the root like any path; the lock file itself is never followed as a link.
        if self.shared:
            path = self.target.resolve(LOCK_DIR) / LOCK_NAME
            if path.is_symlink() or not path.is_file():
                return True  # nothing to wait for, and check mode creates nothing
            try:
                fd = self._open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
            except _Gone:
                return True  # the apply that held it is done
            op = fcntl.LOCK_SH
        else:
            made = ensure_dir(self.target, LOCK_DIR)
            self.made = made or self.made
            path = self.target.resolve(LOCK_DIR) / LOCK_NAME
            self.target.ensure_inside(path.parent)
            try:
                fd = self._open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW)
            except _Gone:
                return False  # its folder went with the run that held the lock: made again next time
            op = fcntl.LOCK_EX
        while True:
            try:
                fcntl.flock(fd, op | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(fd)
                    raise LockTimeout.of("lock.timeout.another_run_held_lock", path=str(path), timeout=self.timeout, at=path) from None
                time.sleep(0.05)
        if not _still_named(fd, path):  # removed by the run that held it, while this one waited
            os.close(fd)
            return self.shared  # check mode: the apply it waited for is done
        self.fd, self.path = fd, path
        return True

    def _open(self, path: Path, flags: int) -> int:
        try:
            return os.open(path, flags, 0o644)
        except FileNotFoundError:
            raise _Gone() from None
        except OSError as exc:
            self._unmake()  # nothing of a lock that could not be taken stays
            lab = self.target.lab_path(path)
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise WriteError(say("lock.cannot_open_lock_file", strerror=exc.strerror, lab=lab),
                                 say("lock.free_space", probe=path.parent), path=lab) from None
            if exc.errno == errno.ELOOP:
                what = say("lock.lock_file_symbolic_link", lab=lab)
            else:
                what = say("lock.cannot_open_lock_file", strerror=exc.strerror, lab=lab)
            clear = f"rmdir {lab}" if exc.errno == errno.EISDIR else f"rm {lab}"  # rm cannot take a folder away
            raise WriteError(what, say("lock.make_sure_no_other", clear=clear),
                             path=lab) from None

    def release(self) -> None:
        """Apply: the lock file and the folders made for it go first, while the lock is still held."""
        if self.fd is not None:
            if not self.shared and self.path is not None:
                self._remove_file()
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None

    def _remove_file(self) -> None:
        try:
            os.unlink(self.path)
        except OSError:
            return  # a read-only folder: the file stays, harmless (the flock is what locks)
        self._unmake()

    def _unmake(self) -> None:
        for lab in reversed(self.made):
            try:
                os.rmdir(self.target.resolve(lab))
            except OSError:
                break  # another run's lock is in it already, or something else is: it stays
        self.made = []

    def __enter__(self) -> "RootLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
