"""Parameter validation: every bad value stops with a message that says how to fix it, in both languages."""

import pytest

from runbook_lib.findings.errors import ParameterError
from runbook_lib.engine.params import default_lab_root, validate


def test_defaults_are_a_sandbox_not_the_host(tmp_path):
    p = validate()
    assert p.root != "/" and p.root == str(default_lab_root())
    assert p.mode == "apply" and p.runtime_name == "nvidia"
    # systemd_cgroup is decided by the run (issue 51): the lab's true in a lab root
    assert p.systemd_cgroup == "auto"
    from runbook_lib.engine.run import Run
    assert Run(validate(root=str(tmp_path))).p.systemd_cgroup is True


@pytest.mark.parametrize("text,value", [("auto", "auto"), ("AUTO", "auto"), ("true", True), (False, False)])
def test_systemd_cgroup_is_a_boolean_or_auto(text, value):
    assert validate(systemd_cgroup=text).systemd_cgroup == value


def test_systemd_cgroup_refuses_another_word_in_both_languages():
    with pytest.raises(ParameterError) as err:
        validate(systemd_cgroup="yes")
    said = str(err.value)
    assert "auto" in said and "systemd_cgroup" in said and "실습" in said


@pytest.mark.parametrize("kwargs,needle", [
    ({"mode": "dry-run"}, "apply, check"),
    ({"config_path": "etc/containerd/config.toml"}, "absolute path"),
    ({"binary_name": "nvidia-container-runtime"}, "absolute path"),
    ({"runtime_name": "NVIDIA"}, "DNS-1123"),
    ({"runtime_name": "nv_idia"}, "DNS-1123"),
    ({"systemd_cgroup": "yes"}, "true, false or auto"),
    ({"systemd_cgroup": 1}, "true, false or auto"),
    ({"layout": "sideways"}, "inplace, dropin"),
    ({"root": "relative"}, "e.g. /srv/lab-root"),  # not "/usr/bin/...": that is no root
    ({"toolkit_dir": 5}, "e.g. /root/toolkit"),  # a number is judged as its text, as -p gives it
    ({"toolkit_dir": ["/root/toolkit"]}, "must be one value, a string"),
    ({"colour": "red"}, "unknown parameter"),
    ({"cdi_spec": "/etc/cdi/nvidia.yml"}, "-p cdi_spec /etc/cdi/nvidia.yaml"),  # podman: tests/real/test_real_podman_cdi.py
    ({"cdi_spec": "/etc/cdi/nvidia"}, ".yaml or .json"),
])
def test_bad_values_are_refused_with_the_fix(kwargs, needle):
    with pytest.raises(ParameterError) as err:
        validate(**kwargs)
    text = str(err.value)
    assert needle in text
    assert "고치기: " in text and "fix: " in text


def test_string_booleans_from_papermill_are_accepted():
    assert validate(systemd_cgroup="false").systemd_cgroup is False


def test_a_json_cdi_spec_name_is_accepted():
    assert validate(cdi_spec="/etc/cdi/nvidia.json").cdi_spec == "/etc/cdi/nvidia.json"
