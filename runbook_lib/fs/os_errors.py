"""Every OS error reading or writing a root's file, as one finding: what the kernel said, the file as the student
or operator wrote it (its path under the root, never the grader's host path) and a fix for that file.

The one reader (bounded_read, through safe_write.read_bytes), the one writer (safe_write.commit) and the root's
walk (target.Target) raise these, so no entry point shows a Python traceback or an English-only
``[Errno 13] ...`` for a file that cannot be read: EACCES/EPERM (a mode or a folder without x), EISDIR,
ENOTDIR, ELOOP, ENXIO (a socket, a FIFO), EIO, ENOSPC/EDQUOT, EROFS, and any other errno by its name.
"""

from __future__ import annotations

import errno
import os
import posixpath
from pathlib import Path

from runbook_lib.findings.errors import ReadError, RunbookError, WriteError

# errno -> the finding of a read that failed with it (the others: read.failed.other, with the errno's name)
_READ = {errno.EACCES: "read.failed.permission", errno.EPERM: "read.failed.permission", errno.EIO: "read.failed.io",
         errno.ELOOP: "path.outside_root.symbolic_links_loop", errno.ENXIO: "write.failed.not_a_regular_file",
         errno.EISDIR: "write.failed.folder_stands_where_file"}
_WRITE = {**_READ, errno.EACCES: "write.failed.permission", errno.EPERM: "write.failed.permission",
          errno.EROFS: "write.failed.read_only", errno.ENOSPC: "write.failed.no_space", errno.EDQUOT: "write.failed.no_space",
          errno.EIO: "write.failed.io"}


def shown_path(host: Path | str, shown: str | None) -> str:
    """The path to name: the one the user wrote (``shown``), else the host path as it is."""
    return shown if shown else str(host)


def read_error(exc: OSError, host: Path | str, shown: str | None) -> RunbookError:
    """The finding of a read of ``host`` (the user's ``shown``) that failed with ``exc``."""
    return _finding(exc, host, shown, _READ, "read.failed.other", ReadError)


def write_error(exc: OSError, host: Path | str, shown: str | None) -> RunbookError:
    """The finding of a write of ``host`` (the user's ``shown``) that failed with ``exc``: the original is untouched."""
    return _finding(exc, host, shown, _WRITE, "write.failed.could_not_write_file", WriteError)


def _finding(exc: OSError, host: Path | str, shown: str | None, codes: dict, other: str, cls) -> RunbookError:
    path = shown_path(host, shown)
    code = codes.get(exc.errno, other)
    name = errno.errorcode.get(exc.errno, str(exc.errno)) if exc.errno else type(exc).__name__
    folder = posixpath.dirname(path.rstrip("/")) or "/"
    blocked = _folder_that_denies(Path(host), path) if code.endswith(".permission") else None
    values = dict(at=path, lab_path=path, folder=folder, errno_name=name, value=exc.strerror or str(exc),
                  host=path, denied=blocked or path)
    if blocked:  # a folder on the way denies it, not the file's own mode: the fix is that folder's
        code = {"read.failed.permission": "read.failed.permission.folder",
                "write.failed.permission": "write.failed.permission.folder"}[code]
    return cls.of(code, path, **values)


def _folder_that_denies(host: Path, shown: str) -> str | None:
    """The first folder on the way to the file that this process may not search (no x for it), named under the
    root; None when the folders let it through (the file's own mode is what denies it). Found by the shown
    path's folders mapped onto the host path's (the host path ends with the shown one when no link was followed)."""
    host_s, shown_s = str(host), shown.rstrip("/")
    if not shown_s.startswith("/") or not host_s.endswith(shown_s):
        return None
    prefix = host_s[: len(host_s) - len(shown_s)]
    parts = shown_s.strip("/").split("/")[:-1]
    for i in range(len(parts)):
        lab = "/" + "/".join(parts[: i + 1])
        try:
            if not os.access(prefix + lab, os.X_OK):
                return lab
        except OSError:
            return None
    return None
