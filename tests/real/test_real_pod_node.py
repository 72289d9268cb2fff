"""The pod step's `node` mode against a throw-away containerd 1.6 standing in for the node: its socket is given
as `cri_endpoint`, the config it runs is the one the runbook wrote (BinaryName pointing at a stand-in that
records its calls and hands over to runc, since this machine has no GPU), and the images it has were
imported, as on an air-gapped node. The container's "nvidia-smi" is a busybox echo of a `GPU n:` line.

Also the failures a node shows: the image missing (never pulled), the handler missing, a container that
prints no GPU or exits non-zero, and the config written but containerd not restarted yet.
"""
import os
import tomllib

import pytest
from helpers import finished_run

import pod_node
import realenv
from pod_node import SMOKE_IMAGE
from pod_traces import traces_of

pytestmark = pytest.mark.real
pytest.importorskip("grpc")
GPU = "GPU 0: Stand-in GPU (UUID: GPU-00000000-0000-0000-0000-000000000000)"


def apply(root, **params):
    return finished_run(root, **params)


class Node(pod_node.Node):
    def check(self, command: str = f"/bin/busybox echo '{GPU}'", **params):
        return super().check(command, **params)


@pytest.fixture(scope="module")
def node(containerd, tmp_path_factory):
    realenv.need_program("ctr")
    pod_node.need_busybox()
    folder = tmp_path_factory.mktemp("node")
    made = Node(containerd, folder)
    yield made
    made.daemon.stop()
    assert made.daemon.leftovers() == [] and traces_of(folder, os.getpid()) == []  # the node's own, not the machine's


def test_a_container_through_the_handler_lists_a_gpu(node):
    result, reading = node.check()
    assert result.status == "passed", [p.what.en for p in result.problems]
    facts = reading.facts
    assert facts["exit_code"] == 0 and facts["gpu_lines"] == [GPU] and facts["left"] == []
    sandbox = facts["sandbox_id"]
    assert sandbox[:13] in result.message.en and "1 GPU" in result.message.en
    # the node's handler ran the configured binary for this pod and its container
    calls = node.record.read_text()
    assert f"create --bundle" in calls and sandbox in calls and facts["container_id"] in calls
    (shown,) = result.evidence.values()
    assert f"$ /bin/busybox echo '{GPU}'    종료 코드 / exit: 0" in shown and f"  {GPU}" in shown


def test_a_container_that_lists_no_gpu_fails(node):
    result, _ = node.check("/bin/busybox echo 'No devices were found'")
    (problem,) = result.problems
    assert result.status == "failed" and problem.code == "pod.node.no_gpu"
    assert "No devices were found" in problem.what.en and "'GPU n:'" in problem.what.ko


def test_a_container_that_exits_non_zero_fails_with_its_output(node):
    result, reading = node.check("/bin/busybox sh -c 'echo nvidia-smi: not found; exit 127'")
    (problem,) = result.problems
    assert problem.code == "pod.node.exit_code" and reading.facts["exit_code"] == 127
    assert "nvidia-smi: not found" in problem.what.en and "127" in problem.what.ko


def test_an_image_the_node_lacks_is_never_pulled_and_the_fix_says_how_to_import_it(node):
    result, reading = node.check(smoke_image="localhost/runbook/absent:1")
    (problem,) = result.problems
    assert problem.code == "pod.node.image_missing" and reading.facts["sandbox_id"] is None
    assert f"ctr --address {node.socket} -n k8s.io images import cuda.tar" in problem.fix.en
    assert "smoke_image" in problem.fix.ko


def test_a_handler_the_running_containerd_lacks_fails_with_its_words(node):
    result, _ = node.check(runtime_name="gpu-rt")
    problem = [p for p in result.problems if p.code.startswith("pod.")]
    assert [p.code for p in problem] == ["pod.node.handler_missing"]
    assert 'no runtime for "gpu-rt" is configured' in problem[0].what.en and "nvidia, runc" in problem[0].what.en


def test_a_config_written_by_this_run_waits_for_the_restart(node, tmp_path):
    """apply on a root the node's containerd was not restarted for: the pod step is skipped, saying so."""
    root = tmp_path / "other"
    root.mkdir()
    rb = apply(root, runtime_name="gpu-rt", smoke="node", cri_endpoint=node.socket, smoke_image=SMOKE_IMAGE)
    result = rb.results["pod"]
    assert result.status == "skipped" and "restart_containerd" in result.message.en
    assert "gpu-rt" in result.message.ko and "nvidia, runc" in result.message.en
    assert tomllib.loads((root / "etc/containerd/config.toml").read_text())  # the config was written
