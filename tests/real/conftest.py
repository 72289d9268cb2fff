"""Real-consumer tests: every test here is marked `real`, and with RUNBOOK_REQUIRE_REAL=1 any skip of
one (whatever raised it, e.g. importorskip) is reported as a failure. A test marked `gpu` needs a GPU node:
CI has none, so its skip stays a skip (it says why)."""
from __future__ import annotations

import pytest

import realenv


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/real/" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.real)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and item.get_closest_marker("real") and not item.get_closest_marker("gpu") \
            and realenv.real_required():
        report.outcome = "failed"
        report.longrepr = (
            f"{realenv.REQUIRE_ENV}=1 인데 실제 프로그램 테스트가 건너뛰어졌습니다 / "
            f"a real-program test was skipped while {realenv.REQUIRE_ENV}=1: {report.longrepr}"
        )


@pytest.fixture(scope="module")
def containerd():
    """containerd 1.6's binary, for the tests that run it as root inside a mount namespace of their own
    (`unshare -m`), so what it reads is the test's root and nothing of the machine's."""
    realenv.need_root()
    realenv.need_program("unshare")
    return realenv.need_program("containerd")


@pytest.fixture(params=realenv.containerd_labels())
def every_containerd(request):
    """Each real containerd in turn (Debian's 1.6, then every pinned 2.x of scripts/containerd2-versions.txt):
    its binary, or a skip (a failure under RUNBOOK_REQUIRE_REAL=1) naming the one that is missing."""
    return realenv.need_containerd(request.param)


@pytest.fixture(params=realenv.containerd2_versions())
def containerd2(request):
    """Each pinned real containerd 2.x in turn."""
    return realenv.need_containerd(request.param)
