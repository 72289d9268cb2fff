"""The 2.x rules of runbook_lib/containerd/reads_2x.py, asked of every pinned real containerd 2.x (and of
Debian's 1.6 where it reads differently): if a release changes how it reads these layouts, these fail."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from runbook_lib.containerd.verify import ContainerdRejected, containerd_dump

from runtime_tables import V2, V3
from runtime_tables import runtime_table as _runtime


def _read(containerd, tmp_path, text: str | bytes) -> dict:
    config = tmp_path / "config.toml"
    config.write_bytes(text if isinstance(text, bytes) else text.encode())
    dump = tomllib.loads(containerd_dump(containerd, config, Path("/")))
    plugin = dump["plugins"].get("io.containerd.cri.v1.runtime") or dump["plugins"]["io.containerd.grpc.v1.cri"]
    return plugin["containerd"]["runtimes"]


def test_a_version_3_file_s_version_2_runtimes_are_migrated_from_2_3_on(containerd2, tmp_path):
    runtimes = _read(containerd2, tmp_path, "version = 3\n" + _runtime("runc", V2, SystemdCgroup=True))
    migrated = containerd2.minor >= (2, 3)
    assert runtimes["runc"]["options"]["SystemdCgroup"] is migrated  # 2.2 ignores them: the built-in runc


def test_a_2x_runtime_table_switches_that_migration_off(containerd2, tmp_path):
    """What apply did before reads_2x refused it: the nvidia table at version 3's place, and runc under 2.3+
    silently loses its SystemdCgroup = true (the built-in runc comes back)."""
    text = "version = 3\n" + _runtime("runc", V2, SystemdCgroup=True) + _runtime("nvidia", V3, BinaryName="/usr/bin/nvidia")
    runtimes = _read(containerd2, tmp_path, text)
    assert sorted(runtimes) == ["nvidia", "runc"]
    assert runtimes["runc"]["options"]["SystemdCgroup"] is False


def test_a_version_2_file_with_2x_names_keeps_only_those_runtimes(containerd2, tmp_path):
    """AKS: version 2 with io.containerd.cri.v1.runtime tables; a grpc.v1.cri runtime beside them is dropped."""
    text = "version = 2\n" + _runtime("runc", V3, SystemdCgroup=True) + _runtime("nvidia", V2, BinaryName="/usr/bin/nvidia")
    runtimes = _read(containerd2, tmp_path, text)
    assert sorted(runtimes) == ["runc"] and runtimes["runc"]["options"]["SystemdCgroup"] is True


def test_the_same_version_2_file_under_1_6_reads_only_the_grpc_names(containerd, tmp_path):
    text = "version = 2\n" + _runtime("runc", V3, SystemdCgroup=True) + _runtime("nvidia", V2, BinaryName="/usr/bin/nvidia")
    assert sorted(_read(containerd, tmp_path, text)) == ["nvidia"]


def test_a_bom_is_refused_by_2x_and_skipped_by_1_6(every_containerd, tmp_path):
    text = b"\xef\xbb\xbfversion = 2\n" + _runtime("runc", V2, SystemdCgroup=True).encode()
    if not every_containerd.is_2x:
        assert _read(every_containerd, tmp_path, text)["runc"]["options"]["SystemdCgroup"] is True
        return
    with pytest.raises(ContainerdRejected) as caught:
        _read(every_containerd, tmp_path, text)
    # 2.2 and 2.3 end with ": ï", 2.4 with ": U+00EF 'ï'"
    assert "failed to unmarshal TOML at row 1 column 1: toml: invalid character at start of key: " in caught.value.said


@pytest.mark.parametrize("byte", [b"\x7f", b"\r", b"\x0c"])
def test_the_other_bytes_2x_rejects_tomllib_rejects_at_the_same_place(containerd2, tmp_path, byte):
    text = b"version = 2\n# a comment with " + byte + b" inside\n"
    with pytest.raises(ContainerdRejected) as caught:
        _read(containerd2, tmp_path, text)
    row, col = map(int, re.search(r"row (\d+) column (\d+)", caught.value.said).groups())
    with pytest.raises(tomllib.TOMLDecodeError, match=rf"at line {row}, column {col}\)"):
        tomllib.loads(text.decode())


def test_a_drop_in_with_a_higher_version_stops_only_2_3_0_to_2_3_4(containerd2, tmp_path):
    """effective.py: 2.3.0-2.3.4 refuse a drop-in whose version is higher than the root file's (reverted after)."""
    drop = tmp_path / "drop.toml"
    drop.write_text("version = 3\n" + _runtime("nvidia", V3, BinaryName="/usr/bin/nvidia"))
    text = f'version = 2\nimports = ["{drop}"]\n' + _runtime("runc", V2, SystemdCgroup=True)
    if containerd2.minor == (2, 3):
        with pytest.raises(ContainerdRejected) as caught:
            _read(containerd2, tmp_path, text)
        assert caught.value.said == "containerd: drop-in config version 3 higher than root config version 2"
    else:
        assert sorted(_read(containerd2, tmp_path, text)) == ["nvidia", "runc"]


def test_2x_keeps_its_built_in_runc_beside_a_config_s_only_runtime(containerd2, tmp_path):
    """diagnose.py: under 2.x the built-in runc stays beside any runtime the config has (1.6 loses it)."""
    runtimes = _read(containerd2, tmp_path, "version = 3\n" + _runtime("nvidia", V3, BinaryName="/usr/bin/nvidia"))
    assert sorted(runtimes) == ["nvidia", "runc"] and runtimes["runc"]["runtime_type"] == "io.containerd.runc.v2"


def test_version_4_is_refused_by_2_2_and_read_from_2_3_on(containerd2, tmp_path):
    text = "version = 4\n" + _runtime("nvidia", V3, BinaryName="/usr/bin/nvidia")
    if containerd2.minor < (2, 3):
        with pytest.raises(ContainerdRejected) as caught:
            _read(containerd2, tmp_path, text)
        assert "expected containerd config version equal to or less than `3`, got `4`" in caught.value.said
    else:
        assert _read(containerd2, tmp_path, text)["nvidia"]["options"]["BinaryName"] == "/usr/bin/nvidia"
