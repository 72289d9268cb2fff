"""The pod step's cleanup (runbook_lib/containerd/smoke/cleanup.py and sandbox._clean), fast and in process,
beside tests/real's pod runs, which were the only tests to hold it (issue 44): every cgroup folder named for the
run goes, deepest first, and the process still in one is stopped first; only a run that left nothing removes its
temporary folder, and what it could not undo is said. The cgroups are real ones, of the machine's cgroup
hierarchy, each named for this test alone (`runbook-smoke-<pid>-<hex>`), so nothing of another run is looked at."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from runbook_lib.containerd.smoke import cleanup, sandbox

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "real"))
import realenv  # noqa: E402  (the one skip-or-fail switch for real programs)


def _writable_mounts() -> list[Path]:
    realenv.need_root()
    mounts = [m for m in cleanup.cgroup_mounts() if (m / "cgroup.procs").exists()]
    if not mounts:
        realenv.missing("cgroup 계층이 없습니다 / no cgroup hierarchy is mounted")
    return mounts


def _pod_cgroups(name: str, mounts: list[Path]) -> list[Path]:
    """What runc leaves of a cgroupfs pod: /<parent>/<sandbox id>/ under every controller (here with a child)."""
    made = []
    for mount in mounts:
        leaf = mount / name / ("0" * 64) / "child"
        leaf.mkdir(parents=True)
        made.append(leaf)
    return made


def test_every_cgroup_named_for_the_run_goes_deepest_first_and_nothing_else(tmp_path):
    mounts = _writable_mounts()
    name, other = cleanup.new_parent_name(), cleanup.new_parent_name()
    _pod_cgroups(name, mounts)
    others = _pod_cgroups(other, mounts)  # another run's (make mutate's second worker): not this run's to remove
    try:
        assert cleanup.remove_cgroups(name) == []
        assert [m for m in mounts if (m / name).exists()] == []
        assert all(leaf.is_dir() for leaf in others)
    finally:
        cleanup.remove_cgroups(other)
    assert [m for m in mounts if (m / other).exists()] == []


def test_a_process_left_in_the_runs_cgroup_is_stopped_and_its_cgroup_removed(tmp_path):
    mounts = _writable_mounts()
    name = cleanup.new_parent_name()
    leaf = _pod_cgroups(name, mounts[:1])[0]
    stray = subprocess.Popen(["sleep", "600"])  # a pod's process the shim did not stop
    try:
        (leaf / "cgroup.procs").write_text(str(stray.pid))
        assert cleanup.processes_in(name) == [stray.pid]
        assert cleanup.remove_cgroups(name) == []
        assert stray.wait(timeout=60) == -9  # SIGKILL
        assert not (mounts[0] / name).exists()
    finally:
        if stray.poll() is None:
            stray.kill()
        stray.wait()
        cleanup.remove_cgroups(name)


def test_only_a_run_that_left_nothing_removes_its_temporary_folder(tmp_path, monkeypatch):
    clean, dirty = tmp_path / "clean", tmp_path / "dirty"
    for base in (clean, dirty):
        (base / "bin").mkdir(parents=True)
    monkeypatch.setattr(cleanup, "remove_cgroups", lambda name: [] if name == "clean" else [f"cgroup /x/{name}: busy"])
    assert sandbox._clean(None, None, [], "clean", clean) == []
    assert not clean.exists()
    assert sandbox._clean(None, None, [], "dirty", dirty) == ["cgroup /x/dirty: busy", f"temp folder {dirty}"]
    assert (dirty / "bin").is_dir(), "kept for the person to look at: the finding names it"


def test_what_the_cleanup_could_not_undo_is_the_steps_finding():
    from runbook_lib.containerd.smoke.facts import judge
    from runbook_lib.engine.params import validate

    found = sandbox.Smoke(sandbox.SANDBOX, {"mode": sandbox.SANDBOX})
    found.facts.update(left=["pid 7 in cgroup runbook-smoke-1-ab", "temp folder /tmp/runbook-smoke-x"])
    (left,) = [p for p in judge(found, validate(root="/", mode="check")) if p.code == "pod.left_behind"]
    assert "pid 7 in cgroup runbook-smoke-1-ab" in left.what.en and "/tmp/runbook-smoke-x" in left.what.ko
