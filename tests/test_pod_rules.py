"""The rules of the pod step (runbook_lib/steps/pod.py) on what a pod did, in process so `make mutate` sees them:
the pod is tried once a run when the step is on, its findings are the step's verdict, its message says what
passed (the pod, the handler, the binary), and its evidence shows what was read either way. A CRI endpoint
nothing listens on is a reading of its own (no containerd needed); a passing pod is a real one: containerd 1.6
starts a sandbox through the nvidia handler in a throw-away root (runbook_lib/containerd/smoke/sandbox.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from grading_helpers import lab_root
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run

sys.path.insert(0, str(Path(__file__).parent / "real"))
import realenv  # noqa: E402 - tests/real's helpers: skip, or fail under RUNBOOK_REQUIRE_REAL=1
from pod_traces import traces  # noqa: E402


def _pod_result(root, **params):
    rb = Run(validate(root=str(root), mode="check", **params)).start()
    try:
        rb.preflight()
        return rb.run(rb.step("pod"))
    finally:
        rb.finish()


def test_an_endpoint_nothing_listens_on_fails_the_step_and_shows_what_was_read(tmp_path):
    socket = "/run/nothing-listens-here/containerd.sock"
    result = _pod_result(lab_root(tmp_path), smoke="node", cri_endpoint=socket)
    assert result.status == "failed" and [p.code for p in result.problems] == ["pod.node.unreachable"]
    assert socket in result.problems[0].what.en
    assert list(result.evidence) == ["smoke node"] and socket in result.evidence["smoke node"]


@pytest.fixture
def sandbox_tools():
    for program in ("containerd", "ctr", "runc"):
        realenv.need_program(program)
    realenv.need_root()
    pytest.importorskip("grpc")
    from runbook_lib.containerd import oci_layout
    if oci_layout.busybox_static() is None:
        realenv.missing("정적 busybox 가 없습니다 (busybox-static) / busybox-static is not installed")
    assert traces() == []
    yield
    assert traces() == []  # no containerd, shim, mount or cgroup of the pod left behind


@pytest.mark.real
def test_a_pod_started_through_the_runtime_passes_and_says_what_ran(tmp_path, sandbox_tools):
    result = _pod_result(lab_root(tmp_path), smoke="sandbox")
    assert result.status == "passed" and result.problems == [], result.text()
    for said in (result.message.en, result.message.ko):
        assert "nvidia" in said and "/usr/bin/nvidia-container-runtime" in said and "None" not in said, said
    assert list(result.evidence) == ["smoke sandbox"]
    assert "handler / 핸들러: nvidia" in result.evidence["smoke sandbox"]
