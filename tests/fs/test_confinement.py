"""Paths: symbolic links inside and outside the root, symlinked parent folders, and bad roots.

Nothing is ever written outside the root. Every "outside" here is a decoy folder in the test's temporary
directory (never the machine's /etc); its bytes and mtimes are compared before and after.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kernel_ports import run_papermill
from reliability_helpers import (BASE, CONFIG, NOTEBOOK, PAPERMILL, TOOLKIT, assert_bilingual,
                                 assert_containerd_registered, assert_failed_clearly, backups, make_root, run_apply,
                                 settled, snapshot, statuses)
from runbook_lib.findings.errors import ConfinementError, ParameterError, WriteError
from runbook_lib.engine.result import FAILED
from runbook_lib.fs.safe_write import commit, plan_write
from runbook_lib.fs.target import Target


@pytest.fixture
def decoy(tmp_path):
    """A folder outside the root that looks like /etc: anything written here would be a write outside the root."""
    d = tmp_path / "decoy-etc"
    (d / "containerd").mkdir(parents=True)
    (d / "cdi").mkdir()
    (d / "containerd" / "config.toml").write_bytes(b"# the host's own config: must never change\n")
    (d / "config.toml").write_bytes(b"# another host file\n")
    (d / "cdi" / "nvidia.yaml").write_bytes(b"kind: host/own\n")
    os.utime(d / "containerd" / "config.toml", ns=(1_000_000_000, 1_000_000_000))
    return d


def _outside_untouched(tmp_path: Path, root: Path, before: dict) -> None:
    """Nothing outside the root changed: the decoy, and the temporary folder around the root."""
    after = {k: v for k, v in snapshot(tmp_path).items() if not (tmp_path / k).is_relative_to(root)}
    assert after == before


def _outside(tmp_path: Path, root: Path) -> dict:
    return {k: v for k, v in snapshot(tmp_path).items() if not (tmp_path / k).is_relative_to(root)}


# --- links inside the root: written through, the link kept ---------------------------------------------------

@pytest.mark.parametrize("link", ["../../srv/containerd/config.toml", "/srv/containerd/config.toml"],
                         ids=["relative", "absolute-inside-root"])
def test_config_symlink_inside_the_root_is_written_through(tmp_path, decoy, link):
    root = make_root(tmp_path)
    (root / "srv/containerd").mkdir(parents=True)
    real = root / "srv/containerd/config.toml"
    real.write_bytes(BASE)
    os.chmod(real, 0o640)
    os.symlink(link, root / CONFIG)
    before = _outside(tmp_path, root)
    results = run_apply(root)
    assert FAILED not in statuses(results)
    assert (root / CONFIG).is_symlink() and os.readlink(root / CONFIG) == link, "the link itself is kept"
    assert b"runtimes.nvidia" in real.read_bytes(), "the edit went through the link"
    assert real.stat().st_mode & 0o777 == 0o640
    assert [b.read_bytes() for b in backups(real.parent, "config.toml")] == [BASE], "backup next to the real file"
    assert list((root / "etc/containerd").iterdir()) == [root / CONFIG], "no temp or backup left beside the link"
    assert_containerd_registered(root)  # containerd, chrooted into the root, follows the same link
    assert settled(run_apply(root))
    _outside_untouched(tmp_path, root, before)


# --- links that point outside the root ------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["absolute", "dotdot"])
def test_config_symlink_out_of_the_root_never_writes_outside(tmp_path, decoy, kind):
    """Links are read as a chroot reads them: an absolute target restarts at the root and '..' stops there. The
    link's target does not exist inside the root, so the run stops at step 1 and says why."""
    root = make_root(tmp_path)
    target = str(decoy / "containerd" / "config.toml") if kind == "absolute" else "../../../decoy-etc/containerd/config.toml"
    os.symlink(target, root / CONFIG)
    before = _outside(tmp_path, root)
    results = run_apply(root)
    failed = assert_failed_clearly(results, 1, "/etc/containerd/config.toml", target, "root")
    assert "심볼릭 링크" in failed.message.ko and "symbolic link" in failed.message.en
    assert os.readlink(root / CONFIG) == target
    _outside_untouched(tmp_path, root, before)


@pytest.mark.parametrize("kind", ["absolute", "dotdot"])
def test_symlinked_parent_folder_out_of_the_root(tmp_path, decoy, kind):
    """<root>/etc -> <decoy> (the shape of <root>/etc -> /etc on a host mounted at <root>): inside a chroot the
    link names a folder under the root that does not exist; the runbook never makes the folder a link points
    at (issue 42: it used to, and wrote a fresh config there), so step 1 stops showing the link, and neither
    the root nor the decoy changes."""
    from helpers import tree_state

    root = tmp_path / "root"
    root.mkdir()
    link = str(decoy) if kind == "absolute" else "../decoy-etc"
    os.symlink(link, root / "etc")
    before, inside_before = _outside(tmp_path, root), tree_state(root)
    results = run_apply(root)
    assert (results[0].id, results[0].status) == ("prepare", FAILED)
    assert f"/etc -> {link}" in results[0].message.en and f"/etc -> {link}" in results[0].message.ko
    assert tree_state(root) == inside_before
    assert os.readlink(root / "etc") == link
    _outside_untouched(tmp_path, root, before)


def test_parent_link_to_itself_is_a_clear_error(tmp_path):
    """<root>/etc -> /etc read inside the root points at itself: a loop, refused with a message. (The link's
    text is /etc, but it is only ever read relative to the root; the host's /etc is not involved.)"""
    root = tmp_path / "root"
    root.mkdir()
    os.symlink("/etc", root / "etc")
    with pytest.raises(ConfinementError) as err:
        run_apply(root)
    assert_bilingual(err.value.what.ko + " " + err.value.what.en)
    assert "/etc -> /etc points at itself" in err.value.fix.en
    assert not err.value.path.startswith(str(tmp_path))  # named under the root, never the host's path (issue 54)
    assert {p.name for p in root.iterdir()} == {"etc"}, "nothing was left, not even the lock"
    # the failed start released the lock: a second attempt is refused at once, not after the lock timeout
    with pytest.raises(ConfinementError):
        run_apply(root)


def test_link_swapped_to_outside_after_planning_is_refused(tmp_path, decoy):
    """The second line of defence: a folder replaced by a link to the outside between the plan and the write."""
    root = make_root(tmp_path, BASE)
    t = Target(root)
    plan = plan_write(t, "/etc/containerd/config.toml", BASE + b"# changed\n")
    os.rename(root / "etc/containerd", root / "etc/containerd.moved")
    os.symlink(decoy / "containerd", root / "etc/containerd")
    before = _outside(tmp_path, root)
    with pytest.raises(ConfinementError) as err:
        commit(plan)
    assert "root" in err.value.what.en and "root" in err.value.what.ko
    _outside_untouched(tmp_path, root, before)


def test_toolkit_file_symlinked_outside_is_never_followed_out(tmp_path, decoy):
    """A result file that is a link to the outside (absolute): read inside the root, it names a missing folder."""
    root = make_root(tmp_path, BASE)
    (root / TOOLKIT).mkdir(parents=True)
    os.symlink(decoy / "config.toml", root / TOOLKIT / "report.txt")
    before = _outside(tmp_path, root)
    results = run_apply(root)
    assert_failed_clearly(results, 8, "report.txt")
    _outside_untouched(tmp_path, root, before)


# --- bad roots ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["missing", "file", "relative"])
def test_bad_root_is_refused_before_anything(tmp_path, kind, monkeypatch):
    monkeypatch.chdir(tmp_path)
    if kind == "missing":
        root = str(tmp_path / "no-such-root")
    elif kind == "file":
        root = str(tmp_path / "a-file")
        Path(root).write_text("not a folder\n")
    else:
        root = "lab-root"
    before = snapshot(tmp_path)
    with pytest.raises(ParameterError) as err:
        run_apply(root)
    assert "root" in err.value.what.en and "root" in err.value.what.ko
    assert_bilingual(err.value.what.ko + " " + err.value.what.en)
    assert err.value.fix is not None
    assert snapshot(tmp_path) == before, "a refused root creates nothing anywhere"


def test_bad_root_through_papermill(tmp_path):
    root = tmp_path / "a-file"
    root.write_text("not a folder\n")
    out = tmp_path / "o.ipynb"
    proc = run_papermill([str(PAPERMILL), "--log-level", "ERROR", "--no-progress-bar", str(NOTEBOOK), str(out),
                          "-p", "root", str(root)], capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    nb = json.loads(out.read_text())
    errors = [o for c in nb["cells"] for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert errors and errors[0]["ename"] == "ParameterError"
    assert "root is a file" in errors[0]["evalue"] and "root 가 폴더가 아니라 파일입니다" in errors[0]["evalue"]
    assert root.read_text() == "not a folder\n"


# --- the lock under the root ----------------------------------------------------------------------------------

def test_lock_file_symlinked_outside_is_refused_clearly(tmp_path, decoy):
    root = make_root(tmp_path, BASE)
    (root / "run/lock").mkdir(parents=True)
    os.symlink(decoy / "config.toml", root / "run/lock/nvidia-runtime-runbook.lock")
    before = _outside(tmp_path, root)
    config = snapshot(root / "etc")
    with pytest.raises(WriteError) as err:
        run_apply(root)
    assert "symbolic link" in err.value.what.en and "심볼릭 링크" in err.value.what.ko
    assert "rm /run/lock/nvidia-runtime-runbook.lock" in err.value.fix.en
    assert snapshot(root / "etc") == config, "nothing was changed without the lock"
    _outside_untouched(tmp_path, root, before)


def test_lock_folder_symlinked_outside_stays_under_the_root(tmp_path, decoy):
    """<root>/run/lock -> <decoy> (outside, read inside the root: a folder that does not exist there): the lock's
    folder is never made at the end of the link; the run stops before anything, showing the link."""
    root = make_root(tmp_path, BASE)
    (root / "run").mkdir()
    os.symlink(decoy, root / "run/lock")
    before = _outside(tmp_path, root)
    with pytest.raises(WriteError) as raised:
        run_apply(root)
    assert f"/run/lock -> {decoy}" in raised.value.what.en
    assert not (root / str(decoy).lstrip("/")).exists()
    _outside_untouched(tmp_path, root, before)


@pytest.mark.parametrize("to", ["/elsewhere", "../gone"], ids=["out-of-the-root", "dangling"])
def test_a_folder_link_out_of_the_root_or_dangling_stops_the_step_before_any_write_showing_the_link(tmp_path, to):
    """<root>/etc/containerd -> /elsewhere (read inside the root: <root>/elsewhere, which does not exist) or a
    dangling relative link: the runbook never makes the folder a link points at; step 1 stops, showing the
    link in both languages, and the root is byte for byte as it was."""
    from helpers import tree_state

    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    os.symlink(to, root / "etc/containerd")
    before = tree_state(root)
    results = run_apply(root)
    assert tree_state(root) == before
    first = results[0]
    assert (first.id, first.status) == ("prepare", FAILED)
    shown = f"/etc/containerd -> {to}"
    [problem] = [p for p in first.problems if p.path == "/etc/containerd"]
    assert shown in problem.what.en and shown in problem.what.ko
    assert "ls -l /etc/containerd" in problem.fix.en and "ls -l /etc/containerd" in problem.fix.ko
