"""The pod step without a pod: `smoke off` and `smoke node` in a lab root are skipped, saying why and how to
turn the step on; its parameters are checked before anything runs."""
import pytest

from runbook_lib.findings.errors import ParameterError
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run


def pod_result(root, **params):
    rb = Run(validate(root=str(root), mode="check", **params))
    rb.preflight()
    return rb.run(rb.step("pod"))


def test_smoke_off_is_skipped_and_says_how_to_turn_it_on(tmp_path):
    result = pod_result(tmp_path)
    assert result.status == "skipped" and result.problems == []
    assert "-p smoke sandbox" in result.message.en and "-p smoke sandbox" in result.message.ko
    assert "-p smoke node" in result.message.en and "GPU Operator" in result.message.ko


def test_smoke_node_in_a_lab_root_without_an_endpoint_is_skipped(tmp_path):
    result = pod_result(tmp_path, smoke="node")
    assert result.status == "skipped"
    assert "-p cri_endpoint" in result.message.en and str(tmp_path) in result.message.ko


@pytest.mark.parametrize("name, value, code", [("smoke", "yes", "parameter.unknown_choice"),
                                               ("smoke_timeout", "0", "parameter.not_positive_int"),
                                               ("smoke_timeout", True, "parameter.not_positive_int"),
                                               ("cri_endpoint", "run/containerd.sock", "parameter.not_absolute"),
                                               ("smoke_command", "  ", "parameter.empty")])
def test_the_pod_parameters_are_checked_first(name, value, code):
    with pytest.raises(ParameterError) as refused:
        validate(**{name: value})
    assert refused.value.code == code


def test_a_cri_endpoint_may_be_written_as_a_unix_url():
    assert validate(cri_endpoint="unix:///run/k3s/containerd/containerd.sock").cri_endpoint.endswith("containerd.sock")


def test_through_a_daemonsets_host_mount_the_node_is_told_its_own_paths(tmp_path):
    """root /host with the node's socket under it: the container's log folder is made in the node's /tmp (seen
    at /host/tmp) and named to containerd as the node sees it; the import command names the node's socket."""
    from pathlib import Path

    from runbook_lib.containerd.smoke.node import import_command, node_view, scratch_parent
    host = tmp_path / "host"
    socket = host / "run/containerd/containerd.sock"
    assert scratch_parent(str(socket), host) == str(host / "tmp")
    assert node_view(host / "tmp/runbook-smoke-x", host) == "/tmp/runbook-smoke-x"
    assert import_command(node_view(socket, host)).startswith("ctr --address /run/containerd/containerd.sock ")
    # a socket outside the root (a lab root with a daemon of its own) and a real node's / keep this machine's paths
    assert scratch_parent(str(tmp_path / "d.sock"), host) is None and scratch_parent(str(socket), Path("/")) is None
    assert node_view(Path("/tmp/x"), Path("/")) == "/tmp/x"


def test_runbook_run_turns_the_step_on_and_the_notebook_declares_its_parameters():
    import papermill

    from helpers import NOTEBOOK
    from runbook_lib.cli.main import build_parser, collect_parameters
    declared = papermill.inspect_notebook(str(NOTEBOOK))
    args = build_parser().parse_args(["run", "--root", "/srv/lab", "--smoke", "sandbox", "-p", "smoke_timeout", "60"])
    params = collect_parameters(args, declared)
    assert params["smoke"] == "sandbox" and params["smoke_timeout"] == 60
    assert {"smoke", "smoke_timeout", "cri_endpoint", "smoke_image", "smoke_command", "smoke_pull"} <= set(declared)


def test_a_failed_pod_step_points_the_student_to_its_own_lesson():
    """The feedback page and the class view name what the pod step teaches, not the generic "read it again"."""
    from runbook_lib.lab.lessons import lesson
    taught = lesson("pod", {"ko": "handler 로 띄운 파드", "en": "A pod through the handler"})
    assert "read this step's explanation" not in taught.en and "설명을 다시" not in taught.ko
    for words in (taught.ko, taught.en):
        assert "-p smoke sandbox" in words and "--systemd-cgroup" in words and "BinaryName" in words
