"""Lab paths resolve under the root as a chroot would: symlinks included, never outside."""

import os

import pytest

from runbook_lib.findings.errors import ConfinementError, ParameterError
from runbook_lib.fs.target import Target


def test_plain_path_resolves_under_root(tmp_path):
    t = Target(tmp_path)
    assert t.resolve("/etc/containerd/config.toml") == tmp_path / "etc/containerd/config.toml"


def test_dotdot_stops_at_root(tmp_path):
    t = Target(tmp_path)
    assert t.resolve("/../../etc/x") == tmp_path / "etc/x"


def test_absolute_symlink_restarts_at_root_not_host(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "etc").symlink_to("/real")
    assert Target(tmp_path).resolve("/etc/containerd/config.toml") == tmp_path / "real/containerd/config.toml"


def test_relative_symlink_with_dotdot_cannot_escape(tmp_path):
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "config.toml").symlink_to("../../../../outside.toml")
    assert Target(tmp_path).resolve("/etc/config.toml") == tmp_path / "outside.toml"


def test_link_to_itself_is_a_clear_error(tmp_path):
    (tmp_path / "etc").symlink_to("/etc")  # in a chroot, /etc -> /etc is a loop
    with pytest.raises(ConfinementError) as err:
        Target(tmp_path).resolve("/etc/containerd/config.toml")
    assert "순환" in str(err.value) and "loop" in str(err.value)


@pytest.mark.parametrize("root,word", [("relative/dir", "absolute"), ("/nonexistent/xyz", "does not exist")])
def test_bad_roots(root, word):
    with pytest.raises(ParameterError) as err:
        Target(root)
    assert word in str(err.value)


def test_root_that_is_a_file(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(ParameterError, match="is a file"):
        Target(f)


def test_lab_path_roundtrip(tmp_path):
    t = Target(tmp_path)
    assert t.lab_path(t.resolve("/root/toolkit/report.txt")) == "/root/toolkit/report.txt"
    assert not os.path.exists(tmp_path / "root")
