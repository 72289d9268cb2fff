"""One run at a time per root: an flock on <root>/run/lock/nvidia-runtime-runbook.lock.

The kernel drops an flock when its process dies, so a run killed with SIGKILL never leaves a lock that blocks
the next one. Check mode must not write anything, so it only takes a shared lock when the file already exists.
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


class RootLock:
    def __init__(self, target: Target, *, shared: bool = False, timeout: float = 600.0):
        self.target = target
        self.shared = shared
        self.timeout = timeout
        self.fd: int | None = None
        self.path: Path | None = None

    def acquire(self) -> "RootLock":
        # The folder is resolved inside the root like any path; the lock file itself is never followed as a link.
        if self.shared:
            path = self.target.resolve(LOCK_DIR) / LOCK_NAME
            if path.is_symlink() or not path.is_file():
                return self  # nothing to wait for, and check mode creates nothing
            fd = self._open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
            op = fcntl.LOCK_SH
        else:
            ensure_dir(self.target, LOCK_DIR)
            path = self.target.resolve(LOCK_DIR) / LOCK_NAME
            self.target.ensure_inside(path.parent)
            fd = self._open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW)
            op = fcntl.LOCK_EX
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(fd, op | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(fd)
                    raise LockTimeout.of("lock.timeout.another_run_held_lock", path=str(path), timeout=self.timeout, at=path) from None
                time.sleep(0.05)
        self.fd, self.path = fd, path
        return self

    def _open(self, path: Path, flags: int) -> int:
        try:
            return os.open(path, flags, 0o644)
        except OSError as exc:
            lab = self.target.lab_path(path)
            if exc.errno == errno.ELOOP:
                what = say("lock.lock_file_symbolic_link", lab=lab)
            else:
                what = say("lock.cannot_open_lock_file", strerror=exc.strerror, lab=lab)
            clear = f"rmdir {lab}" if exc.errno == errno.EISDIR else f"rm {lab}"  # rm cannot take a folder away
            raise WriteError(what, say("lock.make_sure_no_other", clear=clear),
                             path=lab) from None

    def release(self) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> "RootLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
