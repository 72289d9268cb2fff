"""The one switch between "skip" and "fail" for tests that need a real program.

A developer without containerd or podman gets skips; CI sets RUNBOOK_REQUIRE_REAL=1 so the same
absence is a failure (a green CI must mean the real consumers were asked). Any other value is refused,
so a typo cannot quietly turn the proof off.
"""
from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

import pytest

REQUIRE_ENV = "RUNBOOK_REQUIRE_REAL"
_SBIN = "/usr/local/sbin:/usr/sbin:/sbin"


def real_required(environ: Mapping[str, str] = os.environ) -> bool:
    value = environ.get(REQUIRE_ENV, "")
    if value in ("", "0"):
        return False
    if value == "1":
        return True
    raise ValueError(
        f"{REQUIRE_ENV}={value!r} 는 알 수 없는 값입니다: 1(필수) 또는 0/빈 값(없으면 건너뜀)만 씁니다.\n"
        f"{REQUIRE_ENV}={value!r} is not understood: use 1 (required) or 0/empty (skip when missing)."
    )


def missing(reason: str, environ: Mapping[str, str] = os.environ):
    """Skip, or fail when the real programs are required. Never returns."""
    if real_required(environ):
        pytest.fail(f"{reason}\n({REQUIRE_ENV}=1: 실제 프로그램이 필요합니다 / real programs are required)",
                    pytrace=False)
    pytest.skip(reason)


def need_program(name: str, environ: Mapping[str, str] = os.environ) -> str:
    """The absolute path of a real program, or skip/fail."""
    path = shutil.which(name) or shutil.which(name, path=_SBIN)
    if path is None:
        missing(f"{name} 프로그램이 없습니다 (scripts/install-system-deps.sh) / {name} is not installed", environ)
    return path


def need_root(environ: Mapping[str, str] = os.environ) -> None:
    if os.geteuid() != 0:
        missing("root 권한이 필요합니다 (마운트 네임스페이스, 데몬) / needs root (mount namespaces, daemons)",
                environ)


# The real containerd 2.x releases scripts/install-containerd2.sh installs (one version a line).
_VERSIONS_FILE = Path(__file__).resolve().parents[2] / "scripts" / "containerd2-versions.txt"
DEBIAN = "1.6"  # Debian's containerd on PATH (scripts/install-system-deps.sh)


def containerd2_versions() -> list[str]:
    lines = _VERSIONS_FILE.read_text().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]


def containerd_labels() -> list[str]:
    """Every containerd the real tests read configs with: Debian's 1.6, then each pinned 2.x."""
    return [DEBIAN, *containerd2_versions()]


def containerd2_path(version: str, environ: Mapping[str, str] = os.environ) -> Path | None:
    """Where install-containerd2.sh put containerd `version` ($CONTAINERD2_PREFIX, /opt or ~/.cache/runbook)."""
    prefixes = [environ.get("CONTAINERD2_PREFIX", ""), "/opt",
                str(Path(environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "runbook")]
    for prefix in filter(None, prefixes):
        binary = Path(prefix) / f"containerd-v{version}" / "bin" / "containerd"
        if binary.is_file() and os.access(binary, os.X_OK):
            return binary
    return None


class Containerd(str):
    """A real containerd's binary path, knowing which of the tested releases it is (`label`: "1.6", "2.3.4")."""
    label: str

    def __new__(cls, path: str, label: str):
        self = super().__new__(cls, path)
        self.label = label
        return self

    def __getnewargs__(self):  # copied and pickled (papermill's parameters) as what it is
        return str(self), self.label

    @property
    def is_2x(self) -> bool:
        return self.label != DEBIAN

    @property
    def minor(self) -> tuple[int, int]:
        major, minor = self.label.split(".")[:2]
        return int(major), int(minor)


def installed_containerds() -> dict[str, str]:
    """Every pinned containerd's binary by its label, for the tools that ask them all (tools/containerd_releases.py,
    tools/realworld_conformance.py); a missing one ends the tool with the script that installs it."""
    found = {}
    for label in containerd_labels():
        path = "/usr/bin/containerd" if label == DEBIAN else containerd2_path(label)
        if path is None or not Path(path).is_file():
            raise SystemExit(f"containerd {label} is missing: run scripts/install-containerd2.sh (and install-system-deps.sh)")
        found[label] = str(path)
    return found


def need_containerd(label: str, environ: Mapping[str, str] = os.environ) -> Containerd:
    """The binary of containerd `label` (DEBIAN or a pinned 2.x version), or skip/fail."""
    if label == DEBIAN:
        return Containerd(need_program("containerd", environ), DEBIAN)
    found = containerd2_path(label, environ)
    if found is None:
        missing(f"설치되지 않은 containerd 입니다: {label} (scripts/install-containerd2.sh 로 설치하세요, Go 필요) / "
                f"containerd {label} is not installed: run scripts/install-containerd2.sh (needs Go)", environ)
    return Containerd(str(found), label)


def need_own_shim(containerd: Containerd, environ: Mapping[str, str] = os.environ) -> None:
    """A 2.x release's own containerd-shim-runc-v2 beside its containerd, for the tests that start pods (the
    throw-away daemon puts that folder first on PATH; 2.3+ cannot start a pod with Debian's 1.6 shim)."""
    if containerd.is_2x and not (Path(containerd).parent / "containerd-shim-runc-v2").is_file():
        missing(f"containerd {containerd.label} 옆에 containerd-shim-runc-v2 가 없습니다 (scripts/install-containerd2.sh) / "
                f"containerd {containerd.label} has no containerd-shim-runc-v2 beside it: run scripts/install-containerd2.sh",
                environ)


_NVIDIA_CTK_SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "install-nvidia-ctk.sh"


def nvidia_ctk_version() -> str:
    """The nvidia-ctk release scripts/install-nvidia-ctk.sh pins (its `version=` line)."""
    for line in _NVIDIA_CTK_SCRIPT.read_text().splitlines():
        if line.startswith("version="):
            return line.split("=", 1)[1].split()[0]
    raise AssertionError("scripts/install-nvidia-ctk.sh pins no version")


def need_nvidia_ctk(environ: Mapping[str, str] = os.environ) -> str:
    """The real nvidia-ctk that scripts/install-nvidia-ctk.sh installed ($NVIDIA_CTK_PREFIX, /opt or
    ~/.cache/runbook), or skip/fail."""
    version = nvidia_ctk_version()
    prefixes = [environ.get("NVIDIA_CTK_PREFIX", ""), "/opt",
                str(Path(environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "runbook")]
    for prefix in filter(None, prefixes):
        binary = Path(prefix) / f"nvidia-ctk-v{version}" / "bin" / "nvidia-ctk"
        if binary.is_file() and os.access(binary, os.X_OK):
            return str(binary)
    missing(f"nvidia-ctk {version} 이 설치되지 않았습니다 (scripts/install-nvidia-ctk.sh, Go 필요) / "
            f"nvidia-ctk {version} is not installed: run scripts/install-nvidia-ctk.sh (needs Go)", environ)
