"""An existing runtime of the wanted name with another BinaryName is another owner's: never silently
rewritten, the planners refuse with a finding that says whose it looks like and what would change."""

import tomllib

import pytest

from distro_helpers import NVIDIA, WANTED, distro_fixture, plan_inplace, write_root
from helpers import as_node
from layouts import make_root
from runbook_lib.containerd.dropin import dropin_data
from runbook_lib.containerd.effective import load_effective
from runbook_lib.containerd.owner import BINARY_MISSING, OTHER_BINARY, RuntimeOwnedElsewhere, foreign_runtime, looks_like, require_not_foreign
from runbook_lib.containerd.tables import get_in
from runbook_lib.containerd.versions import runtime_path
from runbook_lib.fs.target import Target

GPU_OPERATOR = "/usr/local/nvidia/toolkit/nvidia-container-runtime"


@pytest.mark.parametrize("binary,defined_in,owner", [
    (GPU_OPERATOR, "/etc/containerd/config.toml", "gpu-operator"),
    ("/usr/local/nvidia/toolkit/nvidia-container-runtime.cdi", None, "gpu-operator"),
    (NVIDIA, "/etc/containerd/config.toml", "nvidia-ctk"),
    (NVIDIA, "/var/lib/rancher/k3s/agent/etc/containerd/config.toml", "k3s"),
    (GPU_OPERATOR, "/var/lib/rancher/rke2/agent/etc/containerd/config.toml", "rke2"),
    ("/opt/site/bin/runtime", None, "unknown"),
])
def test_whose_a_binary_looks_like(binary, defined_in, owner):
    assert looks_like(binary, defined_in) == owner


def test_the_gpu_operators_runtime_is_refused_inplace_with_whose_and_what_would_change():
    old = distro_fixture("gpu-operator-nvidia-runtime.toml")
    with pytest.raises(RuntimeOwnedElsewhere) as exc:
        plan_inplace(old)
    f = exc.value.finding
    assert f.code == OTHER_BINARY and f.values["owner"] == "gpu-operator"
    assert f.values["current"] == f'"{GPU_OPERATOR}"' and f.values["wanted"] == f'"{NVIDIA}"'  # quoted: a space shows
    assert exc.value.line == old.splitlines().index(f'            BinaryName = "{GPU_OPERATOR}"') + 1
    assert "GPU Operator" in exc.value.what.ko and "GPU Operator" in exc.value.what.en
    assert "replace_runtime=True" in exc.value.fix.en and "replace_runtime=True" in exc.value.fix.ko


def test_replace_runtime_says_to_replace_it():
    new = tomllib.loads(plan_inplace(distro_fixture("gpu-operator-nvidia-runtime.toml"), replace_runtime=True).text)
    assert get_in(new, runtime_path(2, "nvidia"))["options"]["BinaryName"] == NVIDIA
    assert get_in(new, runtime_path(2, "nvidia-cdi"))["options"]["BinaryName"].endswith(".cdi")  # untouched


def test_the_dropin_planner_refuses_too(tmp_path):
    root = make_root(tmp_path, distro_fixture("gpu-operator-nvidia-runtime.toml").encode())
    eff = load_effective(Target(str(root)), "/etc/containerd/config.toml")
    with pytest.raises(RuntimeOwnedElsewhere):
        dropin_data(eff, WANTED)
    data, _, _ = dropin_data(eff, WANTED, replace_runtime=True)
    assert data["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]["nvidia"]["options"]["BinaryName"] == NVIDIA


@pytest.mark.parametrize("current", ["nvidia-container-runtime", NVIDIA])
def test_a_relative_name_or_the_same_binary_is_ours_to_repair(current):
    text = distro_fixture("gpu-operator-nvidia-runtime.toml").replace(GPU_OPERATOR + '"', current + '"')
    data = tomllib.loads(text)
    assert foreign_runtime(data, 2, "nvidia", NVIDIA) is None
    assert tomllib.loads(plan_inplace(text).text) == tomllib.loads(plan_inplace(plan_inplace(text).text).text)


def test_on_a_real_node_a_replacement_needs_the_new_binary(tmp_path):
    data = tomllib.loads(distro_fixture("gpu-operator-nvidia-runtime.toml"))
    host = as_node(write_root(tmp_path, {"usr/bin/.keep": ""}))
    f = foreign_runtime(data, 2, "nvidia", NVIDIA, replace_runtime=True, target=host)
    assert f.code == BINARY_MISSING and f.values == {"binary": NVIDIA}
    (host.resolve(NVIDIA)).write_text("#!/bin/sh\n")
    assert foreign_runtime(data, 2, "nvidia", NVIDIA, replace_runtime=True, target=host) is None


def test_require_not_foreign_locates_the_owner_through_imports(tmp_path):
    main = 'version = 2\nimports = ["/etc/containerd/conf.d/*.toml"]\n'
    root = make_root(tmp_path, main.encode(), {"etc/containerd/conf.d/50-operator.toml": distro_fixture("gpu-operator-nvidia-runtime.toml")})
    eff = load_effective(Target(str(root)), "/etc/containerd/config.toml")
    with pytest.raises(RuntimeOwnedElsewhere) as exc:
        require_not_foreign(eff, "nvidia", NVIDIA)
    assert exc.value.path == "/etc/containerd/conf.d/50-operator.toml" and exc.value.line == 19
    require_not_foreign(eff, "nvidia-runbook", NVIDIA)  # another name: nothing to refuse
    require_not_foreign(eff, "nvidia", GPU_OPERATOR)     # the owner's own binary: nothing changes
