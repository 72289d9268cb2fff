"""The target root: every absolute path of the lab is resolved under it, as a chroot would.

Symlinks are followed *inside* the root: an absolute link target restarts at the root (so a node mounted at
/host whose /etc/containerd/config.toml links to /etc/... still resolves inside /host) and '..' stops at the
root. No path this module returns can point outside the root. A link loop is an error, not a hang.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from runbook_lib.findings.errors import ConfinementError, ParameterError
from runbook_lib.findings.messages import Msg

MAX_SYMLINKS = 40  # the same limit Linux applies (ELOOP)


class Target:
    def __init__(self, root: str | os.PathLike):
        raw = os.fspath(root)
        if not os.path.isabs(raw):
            raise ParameterError(
                Msg(f"root 는 절대 경로여야 합니다: {raw}", f"root must be an absolute path: {raw}"),
                Msg("'/' 로 시작하는 경로를 주세요. 예: -p root /srv/lab-root",
                    "give a path starting with '/', e.g. -p root /srv/lab-root"))
        if not os.path.exists(raw):
            raise ParameterError(
                Msg(f"root 폴더가 없습니다: {raw}", f"the root folder does not exist: {raw}"),
                Msg(f"먼저 만드세요: mkdir -p {raw}", f"create it first: mkdir -p {raw}"))
        if not os.path.isdir(raw):
            raise ParameterError(
                Msg(f"root 가 폴더가 아니라 파일입니다: {raw}", f"root is a file, not a folder: {raw}"),
                Msg("root 에는 폴더를 주세요 (실제 노드라면 '/').",
                    "give a folder as root ('/' on a real node)."))
        self.root = Path(os.path.realpath(raw))

    @property
    def is_host(self) -> bool:
        """True when the root is the machine's own '/': a real node, not a lab sandbox."""
        return str(self.root) == "/"

    def resolve(self, lab_path: str) -> Path:
        """Map an absolute lab path (``/etc/containerd/config.toml``) to the host path under the root."""
        return self.walk(lab_path)[0]

    def walk(self, lab_path: str) -> tuple[Path, list[tuple[str, str]]]:
        """resolve(), plus the symbolic links followed on the way: (the link's lab path, what it says)."""
        if not str(lab_path).startswith("/"):
            raise ParameterError(
                Msg(f"경로는 '/' 로 시작해야 합니다: {lab_path}", f"paths must start with '/': {lab_path}"),
                Msg("root 안에서의 절대 경로로 적으세요.", "write it as an absolute path inside the root."))
        pending = [p for p in PurePosixPath(lab_path).parts[1:]]
        parts: list[str] = []
        hops = 0
        links: list[tuple[str, str]] = []
        while pending:
            name = pending.pop(0)
            if name in ("", "."):
                continue
            if name == "..":
                if parts:
                    parts.pop()
                continue  # '..' at the root stays at the root, as in a chroot
            candidate = self.root.joinpath(*parts, name)
            if candidate.is_symlink():
                hops += 1
                if hops > MAX_SYMLINKS:
                    raise ConfinementError(
                        Msg(f"심볼릭 링크가 순환합니다: {lab_path}", f"symbolic links loop at: {lab_path}"),
                        Msg("root 안의 링크를 확인하세요 (ls -l). 예: <root>/etc -> /etc 는 자기 자신을 가리킵니다.",
                            "check the links under the root (ls -l); e.g. <root>/etc -> /etc points at itself."),
                        path=str(candidate))
                link = os.readlink(candidate)
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
            return Msg(f"{lab_path} 의 폴더 {folder} 가 없습니다.", f"the folder {folder} of {lab_path} does not exist.")
        return Msg(f"{lab_path} 는 심볼릭 링크({shown})를 거칩니다. 링크는 root 안에서 해석하므로 {self.lab_path(host)} 를 "
                   f"가리키는데, 그 폴더 {folder} 가 root 안에 없습니다. root 밖에는 절대 쓰지 않습니다.",
                   f"{lab_path} goes through symbolic links ({shown}). Links are read inside the root, so it means "
                   f"{self.lab_path(host)}, whose folder {folder} does not exist under the root. "
                   "Nothing is ever written outside the root.")

    def ensure_inside(self, host_path: Path) -> None:
        """Second line of defence, checked again right before every write."""
        real = os.path.realpath(host_path)
        root = str(self.root)
        if not (real == root or real.startswith(root.rstrip("/") + "/")):
            raise ConfinementError(
                Msg(f"root 밖으로 나가는 경로라서 쓰지 않습니다: {host_path} -> {real}",
                    f"refusing a path that leaves the root: {host_path} -> {real}"),
                Msg("root 밖을 가리키는 심볼릭 링크를 root 안의 파일로 바꾸세요.",
                    "replace the symbolic link that points outside the root with a file inside it."),
                path=str(host_path))

    def lab_path(self, host_path: Path) -> str:
        """The path as the lab (and a chroot) would name it."""
        rel = os.path.relpath(host_path, self.root)
        return "/" if rel == "." else "/" + rel

    def __repr__(self) -> str:
        return f"Target({str(self.root)!r})"
