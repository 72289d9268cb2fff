"""The target root: every absolute path of the lab is resolved under it, as a chroot would.

Symlinks are followed *inside* the root: an absolute link target restarts at the root (so a node mounted at
/host whose /etc/containerd/config.toml links to /etc/... still resolves inside /host) and '..' stops at the
root. No path this module returns can point outside the root. A link loop is an error, not a hang.
"""

from __future__ import annotations

import errno
import os
import stat
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from runbook_lib.findings.errors import ConfinementError, ParameterError
from runbook_lib.findings.messages import Msg
from runbook_lib.findings.catalog import say
from runbook_lib.fs import os_errors

MAX_SYMLINKS = 40  # the same limit Linux applies (ELOOP)


def _is_symlink(path: str) -> bool:
    """Path.is_symlink for a string: a missing entry or a file where a folder was expected is no link; any
    other error (EACCES, ...) is raised, as pathlib raises it."""
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP, errno.ENAMETOOLONG):
            return False  # ENAMETOOLONG: no such name can exist, let alone be a link (safe_write names it)
        raise
    except ValueError:  # a NUL in the name, as pathlib answers it
        return False


class Target:
    def __init__(self, root: str | os.PathLike):
        raw = os.fspath(root)
        if not os.path.isabs(raw):
            raise ParameterError.of("parameter.invalid.root_not_absolute", raw=raw)
        if not os.path.exists(raw):
            raise ParameterError.of("parameter.invalid.root_missing", raw=raw)
        if not os.path.isdir(raw):
            raise ParameterError.of("parameter.invalid.root_file_not_folder", raw=raw)
        self.root = Path(os.path.realpath(raw))
        self._walked: dict[str, tuple[Path, tuple[tuple[str, str], ...]]] | None = None  # see remembering()

    @contextmanager
    def remembering(self):
        """While a run plans: each lab path is walked once and remembered (a plan walks the same ~20 paths ~75
        times in a few milliseconds). Inside remember() and forget() (a notebook cell), the cell's memo."""
        outer = getattr(self, "_walked", None)
        if outer is None:
            self._walked = {}
        try:
            yield self
        finally:
            self._walked = outer

    def remember(self) -> None:
        """From now until forget(): each lab path walked once (a notebook cell: its reads walk the same few
        paths ~2 times each). The runbook's own writes never make, move or remove a symbolic link, so they
        change no walk; a write still checks its path right before it writes (ensure_inside), walked or not.
        The notebook forgets at the end of every cell: a link changed by hand between cells is walked afresh."""
        if getattr(self, "_walked", None) is None:
            self._walked = {}

    def forget(self) -> None:
        self._walked = None

    @property
    def is_host(self) -> bool:
        """True when the root is the machine's own '/': a real node, not a lab sandbox."""
        return str(self.root) == "/"

    def resolve(self, lab_path: str) -> Path:
        """Map an absolute lab path (``/etc/containerd/config.toml``) to the host path under the root."""
        return self.walk(lab_path)[0]

    def walk(self, lab_path: str) -> tuple[Path, list[tuple[str, str]]]:
        """resolve(), plus the symbolic links followed on the way: (the link's lab path, what it says)."""
        walked = getattr(self, "_walked", None)
        if walked is None:
            return self._walk(lab_path)
        key = str(lab_path)
        if key not in walked:  # a path that cannot be walked raises each time, and is not remembered
            resolved, links = self._walk(lab_path)
            walked[key] = (resolved, tuple(links))
        resolved, links = walked[key]
        return resolved, list(links)

    def _walk(self, lab_path: str) -> tuple[Path, list[tuple[str, str]]]:
        if not str(lab_path).startswith("/"):
            raise ParameterError.of("parameter.invalid.path_not_absolute", lab_path=lab_path)
        pending = [p for p in PurePosixPath(lab_path).parts[1:]]
        parts: list[str] = []
        hops = 0
        links: list[tuple[str, str]] = []
        # strings, not Path objects, for each step of the walk: a run walks ~150 paths, and pathlib's parsing of
        # every candidate was most of the walk's CPU (the names come from PurePosixPath: none holds a '/')
        base = "" if str(self.root) == "/" else str(self.root)
        while pending:
            name = pending.pop(0)
            if name in ("", "."):
                continue
            if name == "..":
                if parts:
                    parts.pop()
                continue  # '..' at the root stays at the root, as in a chroot
            candidate = base + "/" + "/".join(parts + [name])
            try:
                is_link = _is_symlink(candidate)
                link = os.readlink(candidate) if is_link else None
            except OSError as exc:  # a folder on the way the run may not search (EACCES): said for the lab path
                raise os_errors.read_error(exc, candidate, lab_path) from None
            if is_link:
                hops += 1
                if hops > MAX_SYMLINKS:  # named as the user wrote it, never the grader's host path
                    raise ConfinementError.of("path.outside_root.symbolic_links_loop", path=lab_path, lab_path=lab_path)
                links.append(("/" + "/".join(parts + [name]), link))
                if link.startswith("/"):
                    parts = []  # absolute links restart at the root, never at the host's '/'
                pending = [p for p in PurePosixPath(link).parts if p != "/"] + pending
                continue
            parts.append(name)
        resolved = self.root.joinpath(*parts)
        self.ensure_inside(resolved)
        return resolved, links

    def explain_missing_parent(self, lab_path: str) -> Msg:
        """Why a file cannot be written: its folder, reached through symbolic links read inside the root, is missing.
        On the host those links may point outside the root, where the runbook never writes."""
        host, links = self.walk(lab_path)
        shown = ", ".join(f"{p} -> {t}" for p, t in links)
        folder = self.lab_path(host.parent)
        if not links:
            return say("target.folder_does_not_exist", lab_path=lab_path, folder=folder)
        return say("target.goes_through_symbolic_links", lab_path=lab_path, shown=shown, host=self.lab_path(host), folder=folder)

    def ensure_inside(self, host_path: Path) -> None:
        """Second line of defence, checked again right before every write."""
        real = os.path.realpath(host_path)
        root = str(self.root)
        if not (real == root or real.startswith(root.rstrip("/") + "/")):
            raise ConfinementError.of("path.outside_root.refusing_path_leaves_root", path=str(host_path), host_path=host_path, real=real)

    def lab_path(self, host_path: Path) -> str:
        """The path as the lab (and a chroot) would name it."""
        rel = os.path.relpath(host_path, self.root)
        return "/" if rel == "." else "/" + rel

    def shell_path(self, lab_path: str) -> str:
        """The path a person types in a shell on this machine for a lab path (a fix's `mkdir -p`, `cp`, `mv`):
        under the root, the root's own path first (/tmp/lab/etc/containerd); on the root /, the lab path itself.
        Links are not followed: it is the path as pasted, which the shell walks as the runbook does under /."""
        root = str(self.root).rstrip("/")
        return root + "/" + lab_path.lstrip("/") if root else lab_path

    def __repr__(self) -> str:
        return f"Target({str(self.root)!r})"
