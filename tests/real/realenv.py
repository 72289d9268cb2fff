"""The one switch between "skip" and "fail" for tests that need a real program.

A developer without containerd or podman gets skips; CI sets RUNBOOK_REQUIRE_REAL=1 so the same
absence is a failure (a green CI must mean the real consumers were asked). Any other value is refused,
so a typo cannot quietly turn the proof off.
"""
from __future__ import annotations

import os
import shutil
from collections.abc import Mapping

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
        missing(f"{name} 이(가) 없습니다 (scripts/install-system-deps.sh) / {name} is not installed", environ)
    return path


def need_root(environ: Mapping[str, str] = os.environ) -> None:
    if os.geteuid() != 0:
        missing("root 권한이 필요합니다 (마운트 네임스페이스, 데몬) / needs root (mount namespaces, daemons)",
                environ)
