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
                                               ("smoke_timeout", "0", "parameter.not_positive_integer"),
                                               ("smoke_timeout", True, "parameter.not_positive_integer"),
                                               ("cri_endpoint", "run/containerd.sock", "parameter.not_absolute"),
                                               ("smoke_command", "  ", "parameter.empty")])
def test_the_pod_parameters_are_checked_first(name, value, code):
    with pytest.raises(ParameterError) as refused:
        validate(**{name: value})
    assert refused.value.code == code


def test_a_cri_endpoint_may_be_written_as_a_unix_url():
    assert validate(cri_endpoint="unix:///run/k3s/containerd/containerd.sock").cri_endpoint.endswith("containerd.sock")
