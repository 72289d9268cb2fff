"""Lab paths resolve under the root as a chroot would: symlinks included, never outside."""

from __future__ import annotations

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


# -------------------------------------------------------------------------------------------------------------------
# From tests/fs/test_target.py (merged here):
# Target.remembering() (runbook_lib/fs/target.py): while a run plans, each lab path is walked once. What the
# walk finds is the same as without it; a path that cannot be walked still raises every time; once the planning
# ends, every walk looks at the disk again (a link changed since is followed where it points now).


@pytest.fixture
def root(tmp_path):
    (tmp_path / "etc" / "real").mkdir(parents=True)
    (tmp_path / "etc" / "other").mkdir()
    os.symlink("/etc/real", tmp_path / "etc" / "containerd")
    return tmp_path


def _counting(monkeypatch) -> list[str]:
    walked: list[str] = []
    real = Target._walk
    monkeypatch.setattr(Target, "_walk", lambda self, p: walked.append(p) or real(self, p))
    return walked


def test_a_path_is_walked_once_while_planning_and_found_where_it_is(root, monkeypatch):
    target = Target(root)
    expected = target.walk("/etc/containerd/config.toml")
    walked = _counting(monkeypatch)
    with target.remembering():
        first = target.walk("/etc/containerd/config.toml")
        first[1].append(("/changed", "by a caller"))  # a caller's list is its own
        again = target.walk("/etc/containerd/config.toml")
        assert target.resolve("/etc/containerd/config.toml") == expected[0]
    assert walked == ["/etc/containerd/config.toml"]
    assert again == expected == (root / "etc" / "real" / "config.toml", [("/etc/containerd", "/etc/real")])


def test_outside_the_planning_every_walk_reads_the_disk_again(root, monkeypatch):
    target = Target(root)
    with target.remembering():
        with target.remembering():  # nested: the same memory, kept until the outer one ends
            target.walk("/etc/containerd/x")
        assert target.walk("/etc/containerd/x")[0] == root / "etc" / "real" / "x"
    os.remove(root / "etc" / "containerd")
    os.symlink("/etc/other", root / "etc" / "containerd")
    walked = _counting(monkeypatch)
    assert target.walk("/etc/containerd/x")[0] == root / "etc" / "other" / "x"
    assert target.walk("/etc/containerd/x")[0] == root / "etc" / "other" / "x"
    assert walked == ["/etc/containerd/x", "/etc/containerd/x"]


def test_a_path_that_cannot_be_walked_raises_every_time_while_planning(root, monkeypatch):
    os.symlink("loop", root / "loop")
    target = Target(root)
    walked = _counting(monkeypatch)
    with target.remembering():
        for _ in range(2):
            with pytest.raises(ConfinementError):
                target.walk("/loop/x")
    assert walked == ["/loop/x", "/loop/x"]
