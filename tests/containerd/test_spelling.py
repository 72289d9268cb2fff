"""containerd 2.3's version 4 edited at its real paths, a drop-in never above the root's version, and the new
runtime's options in containerd's spelling (kubespray's `binaryName` / `systemdCgroup` not carried over)."""

import tomllib

import pytest

from distro_helpers import NVIDIA, WANTED, containerd_reads, distro_fixture, plan_inplace, write_root
from layouts import make_root
from runbook_lib.containerd.dropin import dropin_data, dropin_version
from runbook_lib.containerd.effective import MERGE_2X, load_effective
from runbook_lib.containerd.spelling import case_variants
from runbook_lib.containerd.tables import get_in
from runbook_lib.containerd.versions import runtime_path
from runbook_lib.findings.errors import ConfigError
from runbook_lib.fs.target import Target

CONFIG = "/etc/containerd/config.toml"


def test_version_4_gets_the_runtime_where_containerd_2_3_reads_it():
    old = distro_fixture("containerd-2.3-config-v4.toml")
    new = plan_inplace(old).text
    data = tomllib.loads(new)
    assert data["version"] == 4  # never relabelled
    nvidia = get_in(data, runtime_path(4, "nvidia"))
    assert nvidia["options"] == {"BinaryName": NVIDIA, "SystemdCgroup": True}
    assert nvidia["privileged_without_host_devices"] is False  # copied from runc, as nvidia-ctk does
    assert data["plugins"]["io.containerd.server.v1.grpc"] == tomllib.loads(old)["plugins"]["io.containerd.server.v1.grpc"]
    assert new.startswith(old[:old.index("          [plugins.\"io.containerd.cri.v1.runtime\".containerd.runtimes.runc.options]")])


def test_version_4_merges_key_by_key_and_the_dropin_carries_the_roots_version(tmp_path):
    root = make_root(tmp_path, distro_fixture("containerd-2.3-config-v4.toml").encode())
    eff = load_effective(Target(str(root)), CONFIG)
    assert eff.version == 4 and eff.merge == MERGE_2X
    data, _, _ = dropin_data(eff, WANTED)
    assert data["version"] == dropin_version(eff) == 4
    assert list(data["plugins"]) == ["io.containerd.cri.v1.runtime"]


@pytest.mark.parametrize("root_version,dropin_version_", [(3, 4), (2, 3)])
def test_a_dropin_above_the_roots_version_is_refused_with_its_line(tmp_path, root_version, dropin_version_):
    main = f'version = {root_version}\nimports = ["/etc/containerd/conf.d/*.toml"]\n'
    drop = f"# site\nversion = {dropin_version_}\n"
    root = make_root(tmp_path, main.encode(), {"etc/containerd/conf.d/10-site.toml": drop})
    if root_version < 3:
        # containerd 1.x has no such rule: a drop-in's version simply overrides
        assert load_effective(Target(str(root)), CONFIG).version == dropin_version_
        return
    with pytest.raises(ConfigError) as exc:
        load_effective(Target(str(root)), CONFIG)
    e = exc.value
    assert e.path == "/etc/containerd/conf.d/10-site.toml" and e.line == 2
    assert "2.3.0-2.3.4" in e.what.en and "2.3.0-2.3.4" in e.what.ko and "containerd 2.3 and later" in e.what.en
    assert e.fix.en.endswith(f"version = {root_version}")


def test_kubespray_runc_spelling_is_not_copied_into_the_new_runtime():
    old = distro_fixture("kubespray-2.x-config.toml")
    assert case_variants(tomllib.loads(old)["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]["runc"]["options"]) \
        == {"systemdCgroup": "SystemdCgroup", "binaryName": "BinaryName"}
    new = tomllib.loads(plan_inplace(old).text)
    nvidia = get_in(new, runtime_path(2, "nvidia"))
    assert nvidia["options"] == {"BinaryName": NVIDIA, "SystemdCgroup": True}
    assert nvidia["base_runtime_spec"] == "/etc/containerd/cri-base.json"  # the rest of runc's table is kept
    assert get_in(new, runtime_path(2, "runc"))["options"]["binaryName"] == "/usr/local/bin/runc"  # runc untouched


def test_a_variant_in_the_runtimes_own_table_is_reported_with_its_line():
    old = distro_fixture("kubespray-2.x-config.toml").replace(
        "    [plugins.\"io.containerd.grpc.v1.cri\".registry]\n",
        "        [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\n"
        "          runtime_type = \"io.containerd.runc.v2\"\n"
        "          [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\n"
        f"            binaryName = \"{NVIDIA}\"\n"
        "    [plugins.\"io.containerd.grpc.v1.cri\".registry]\n")
    plan = plan_inplace(old)
    line = old.splitlines().index(f"            binaryName = \"{NVIDIA}\"") + 1
    notes = [n for n in plan.notes if "binaryName" in n.en]
    assert len(notes) == 1 and f"/etc/containerd/config.toml:{line}" in notes[0].en
    assert "BinaryName" in notes[0].ko and "'" not in notes[0].ko


def test_containerd_reads_the_kubespray_config_with_one_binary_spelling(tmp_path):
    new = plan_inplace(distro_fixture("kubespray-2.x-config.toml")).text
    root = write_root(tmp_path, {"etc/containerd/config.toml": new})
    seen = containerd_reads(root)
    assert seen["runtime"]["options"]["BinaryName"] == NVIDIA
    assert not case_variants(seen["runtime"]["options"])
    assert set(seen["runtime_names"]) == {"runc", "nvidia"}
