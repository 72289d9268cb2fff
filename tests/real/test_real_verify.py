"""runbook_lib.containerd.verify with the real containerd: imports resolved under the root, not the host."""
import os
from pathlib import Path

import pytest

from paths import BROKEN, GOOD_CONFIG
from runbook_lib.containerd.verify import ContainerdRejected, containerd_reading

pytestmark = pytest.mark.real

DROP_IN = """version = 2
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.{name}]
  runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.{name}.options]
    BinaryName = "/usr/bin/{name}"
    SystemdCgroup = true
"""


def _mounts():
    return Path("/proc/self/mountinfo").read_text()


def test_imports_are_read_under_the_root_not_the_host(every_containerd, tmp_path):
    containerd = every_containerd
    # The same absolute import path exists twice: on the host, and under the root.
    shared_dir = tmp_path / "drop-ins"
    shared_dir.mkdir()
    (shared_dir / "99.toml").write_text(DROP_IN.format(name="host-only"))
    root = tmp_path / "root"
    under_root = root / str(shared_dir).lstrip("/")
    under_root.mkdir(parents=True)
    (under_root / "99.toml").write_text(DROP_IN.format(name="nvidia"))
    config = root / "etc" / "containerd" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'imports = ["{shared_dir}/*.toml"]\n' + GOOD_CONFIG.read_text())
    before = _mounts()

    got = containerd_reading(containerd, config, root, "nvidia")

    if containerd.is_2x:
        # 2.x dumps the import patterns as written (its built-in conf.d one first) and merges key by key
        assert got["imports"] == ["/etc/containerd/conf.d/*.toml", f"{shared_dir}/*.toml"]
        assert got["runtime_names"] == ["nvidia", "runc"]
    else:
        assert sorted(got["imports"]) == sorted([f"{shared_dir}/99.toml", "/etc/containerd/config.toml"])
        # containerd 1.6 replaces a plugin's whole table with the imported one: runc is gone
        assert got["runtime_names"] == ["nvidia"]
    assert got["runtime"]["options"] == {"BinaryName": "/usr/bin/nvidia", "SystemdCgroup": True}
    assert _mounts() == before
    assert sorted(os.listdir(tmp_path)) == ["drop-ins", "root"]


def test_root_slash_reads_the_host_path(every_containerd, tmp_path):
    containerd = every_containerd
    got = containerd_reading(containerd, GOOD_CONFIG, Path("/"), "nvidia")
    assert got["runtime_names"] == ["nvidia", "runc"] and got["default_runtime_name"] == "runc"


def test_missing_runtime_is_none(containerd):
    got = containerd_reading(containerd, GOOD_CONFIG, Path("/"), "other")
    assert got["runtime"] is None


def test_rejection_under_a_root_names_the_node_path(every_containerd, tmp_path):
    containerd = every_containerd
    config = tmp_path / "etc" / "containerd" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_bytes((BROKEN / "duplicate-key.toml").read_bytes())
    with pytest.raises(ContainerdRejected) as caught:
        containerd_reading(containerd, config, tmp_path, "nvidia")
    err = caught.value
    if containerd.minor >= (2, 4):  # 2.4 names the row and column, not the file
        assert err.said == "containerd: failed to unmarshal TOML at row 32 column 11: toml: key runtime_type is already defined"
    elif containerd.is_2x:  # 2.2 and 2.3 name neither the file nor the line of a duplicate key
        assert err.said == "containerd: failed to unmarshal TOML: toml: key runtime_type is already defined"
    else:
        assert "/etc/containerd/config.toml: (32, 11): The following key was defined twice" in err.stderr
    assert "containerd 가 설정 파일을 읽지 못했습니다" in err.message_ko and "containerd could not read" in err.message_en
    assert "level=" not in str(err).split("said:")[-1]


def test_config_outside_the_root_is_refused(containerd, tmp_path):
    with pytest.raises(ValueError, match="not under the target root"):
        containerd_reading(containerd, GOOD_CONFIG, tmp_path, "nvidia")


def test_missing_binary_is_explained(tmp_path):
    with pytest.raises(FileNotFoundError, match="containerd binary not found"):
        containerd_reading(str(tmp_path / "no-containerd"), GOOD_CONFIG, Path("/"), "nvidia")
