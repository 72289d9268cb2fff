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
from runbook_lib.findings.messages import Msg
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
                    raise LockTimeout(
                        Msg(f"다른 실행이 {self.timeout:.0f}초 넘게 잠금을 쥐고 있습니다: {path}",
                            f"another run has held the lock for over {self.timeout:.0f} s: {path}"),
                        Msg("그 실행이 끝나기를 기다리거나 멈춘 프로세스를 확인하세요 (fuser -v 로 확인).",
                            "wait for that run to finish, or look for a stuck process (fuser -v shows it)."),
                        path=str(path)) from None
                time.sleep(0.05)
        self.fd, self.path = fd, path
        return self

    def _open(self, path: Path, flags: int) -> int:
        try:
            return os.open(path, flags, 0o644)
        except OSError as exc:
            lab = self.target.lab_path(path)
            if exc.errno == errno.ELOOP:
                what = Msg(f"잠금 파일이 심볼릭 링크입니다: {lab}. 런북은 잠금 파일의 링크를 따라가지 않습니다.",
                           f"the lock file is a symbolic link: {lab}; the runbook never follows a link for its lock.")
            else:
                what = Msg(f"잠금 파일을 열 수 없습니다 ({exc.strerror}): {lab}",
                           f"cannot open the lock file ({exc.strerror}): {lab}")
            clear = f"rmdir {lab}" if exc.errno == errno.EISDIR else f"rm {lab}"  # rm cannot take a folder away
            raise WriteError(what, Msg(f"다른 실행이 없는지 확인한 뒤 그 자리를 비우세요: {clear}",
                                       f"make sure no other run is going on, then clear the way: {clear}"),
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
