"""Concurrency: two runs on the same root at the same moment are serialized by the root's lock; both complete and
neither update is lost. A stale lock from a killed run does not block the next run."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from reliability_helpers import (BASE, CONFIG, REPO, assert_bilingual, backups, containerd_reads, make_root,
                                 run_apply, runtimes, statuses)
from runbook_lib.findings.errors import LockTimeout
from runbook_lib.fs.lock import LOCK_NAME, RootLock
from runbook_lib.engine.result import FAILED
from runbook_lib.fs.target import Target

# A run that logs when it holds the lock, and holds it longer than it needs to: between reading the config and
# writing it, it waits, so that two unserialized runs would both read the old file and one update would be lost
# (or refused). Both start when the `go` file appears.
CHILD = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[4])
import runbook_lib.fs.lock as lock, runbook_lib.engine.run as run_context  # where every step plans its writes
from reliability_helpers import run_apply

root, name, log = sys.argv[1], sys.argv[2], sys.argv[3]
def note(what):
    with open(log, "a") as fh:
        fh.write(json.dumps([name, what, time.monotonic()]) + "\n")
acquire, release, plan_write = lock.RootLock.acquire, lock.RootLock.release, run_context.Run.plan_write
def acquire_logged(self):
    got = acquire(self); note("locked"); return got
def release_logged(self):
    note("unlocked"); release(self)
def slow_plan_write(*a, **kw):
    plan = plan_write(*a, **kw); time.sleep(0.05); return plan
lock.RootLock.acquire, lock.RootLock.release, run_context.Run.plan_write = acquire_logged, release_logged, slow_plan_write
go = os.path.join(os.path.dirname(log), "go")
open(os.path.join(os.path.dirname(log), "ready-" + name), "w").close()  # imports done: waiting for `go`
while not os.path.exists(go):
    time.sleep(0.001)
results = run_apply(root, runtime_name=name, binary_name=f"/usr/bin/{name}-container-runtime")
open(os.path.join(os.path.dirname(log), "done-" + name), "w").close()
print(json.dumps([[r.step, r.status, r.message.en] for r in results]))
sys.exit(0 if all(r.status != "failed" for r in results) else 1)
"""


# Without the lock, one interleaving made certain: both runs plan from the same old config, then nvidia writes
# everything while nvidia-cdi waits, and only then does nvidia-cdi commit its stale plan.
STALE_PLAN = r"""
preflight = run_context.Run.preflight
def wait_for(what):
    while not os.path.exists(os.path.join(os.path.dirname(log), what)):
        time.sleep(0.005)
def planned_then_wait(self):
    plans = preflight(self)
    if name == "nvidia-cdi":
        open(os.path.join(os.path.dirname(log), "planned-" + name), "w").close()
        wait_for("done-nvidia")
    else:
        wait_for("planned-nvidia-cdi")
    return plans
run_context.Run.preflight = planned_then_wait
"""


def _start(root: Path, name: str, log: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CHILD, str(root), name, str(log), str(REPO / "tests")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _go_when_ready(folder: Path, procs: dict) -> None:
    """Touch `go` once every child has imported everything and is polling for it (whatever the machine's load)."""
    while not all((folder / f"ready-{name}").exists() for name in procs):
        dead = [name for name, p in procs.items() if p.poll() is not None]
        assert not dead, f"{dead} ended before the start: {[procs[n].communicate() for n in dead]}"
        time.sleep(0.01)
    (folder / "go").touch()


def test_two_runs_at_once_are_serialized_and_both_updates_kept(tmp_path):
    root = make_root(tmp_path, BASE)
    log = tmp_path / "lock.log"
    procs = {name: _start(root, name, log) for name in ("nvidia", "nvidia-cdi")}
    _go_when_ready(tmp_path, procs)
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, f"{name}: {out}\n{err}"

    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e[1] for e in events] == ["locked", "unlocked", "locked", "unlocked"], events
    first, second = events[0][0], events[2][0]
    assert events[0][0] == events[1][0] and events[2][0] == events[3][0] and first != second
    assert events[1][2] <= events[2][2], "the second run took the lock only after the first released it"

    data = tomllib.loads((root / CONFIG).read_text())
    table = runtimes(data)
    for name in ("nvidia", "nvidia-cdi"):
        assert table[name]["options"]["BinaryName"] == f"/usr/bin/{name}-container-runtime", "an update was lost"
    saved = [b.read_bytes() for b in backups(root / "etc/containerd", "config.toml")]
    assert len(saved) == 2 and BASE in saved, "each run backed up what it replaced"
    assert any(f"runtimes.{first}]".encode() in s for s in saved), "the second run backed up the first run's result"
    seen = containerd_reads(root, "nvidia-cdi")
    assert {"nvidia", "nvidia-cdi", "runc"} <= set(seen["runtime_names"])


def test_unserialized_runs_would_clash(tmp_path, monkeypatch):
    """The same two runs with the lock taken away: the test above is not vacuous, because without the lock the
    runs overlap, and the one that planned from the old config is refused its update."""
    root = make_root(tmp_path, BASE)
    log = tmp_path / "lock.log"
    child = CHILD.replace("acquire(self); note", "self; note").replace("note(\"unlocked\"); release(self)",
                                                                    "note(\"unlocked\")")
    child = child.replace("go = os.path.join", STALE_PLAN + "go = os.path.join", 1)
    procs = {name: subprocess.Popen([sys.executable, "-c", child, str(root), name, str(log), str(REPO / "tests")],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name in ("nvidia", "nvidia-cdi")}
    _go_when_ready(tmp_path, procs)
    outputs = {name: p.communicate(timeout=120) for name, p in procs.items()}
    codes = {name: p.returncode for name, p in procs.items()}
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e[1] for e in events][:2] == ["locked", "locked"], "without the lock both runs are inside at once"
    table = runtimes(tomllib.loads((root / CONFIG).read_text()))
    # the stale plan is refused at its commit (the file changed after the plan was made): no update is lost
    assert codes == {"nvidia": 0, "nvidia-cdi": 1}, outputs
    assert "the file changed after the plan was made" in outputs["nvidia-cdi"][0], outputs["nvidia-cdi"]
    assert "nvidia" in table and "nvidia-cdi" not in table, sorted(table)


def test_a_live_lock_blocks_and_says_so(tmp_path):
    root = make_root(tmp_path, BASE)
    holder = RootLock(Target(root)).acquire()
    try:
        started = time.monotonic()
        with pytest.raises(LockTimeout) as err:
            RootLock(Target(root), timeout=0.3).acquire()
        assert time.monotonic() - started >= 0.3
        assert_bilingual(err.value.what.ko + " " + err.value.what.en)
        assert LOCK_NAME in err.value.what.en and "fuser" in err.value.fix.en
    finally:
        holder.release()


HOLD = r"""
import sys, time
sys.path.insert(0, sys.argv[2])
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run
rb = Run(validate(root=sys.argv[1])).start()
rb.preflight()
rb.commit(rb.step("prepare"))
print("holding", flush=True)
time.sleep(600)
"""


def test_stale_lock_from_a_killed_run_does_not_block(tmp_path):
    root = make_root(tmp_path, BASE)
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(root), str(REPO / "tests")], stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout.readline().strip() == "holding"
        with pytest.raises(LockTimeout):
            RootLock(Target(root), timeout=0.2).acquire()  # really held while the run lives
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    lock_file = root / "run/lock" / LOCK_NAME
    assert lock_file.exists(), "the killed run left its lock file behind"
    RootLock(Target(root), timeout=0).acquire().release()  # free at once: a dead run's file holds nothing
    results = run_apply(root)
    assert FAILED not in statuses(results)


def test_leftover_lock_file_with_junk_does_not_block(tmp_path):
    """A lock file someone copied, edited or chmod'ed: only a live flock counts, never the file's presence."""
    root = make_root(tmp_path, BASE)
    (root / "run/lock").mkdir(parents=True)
    lock_file = root / "run/lock" / LOCK_NAME
    lock_file.write_text("pid 12345 from a run long gone\n")
    os.chmod(lock_file, 0o400)
    RootLock(Target(root), timeout=0.2).acquire().release()
    assert FAILED not in statuses(run_apply(root))


def test_no_lock_or_folder_of_it_is_left_after_a_run_and_a_folder_the_node_had_stays(tmp_path):
    """A run removes its lock file, still holding the lock, and the folders it made for it; a node's own
    /run/lock is the node's and stays."""
    lab = make_root(tmp_path, BASE, name="lab")
    run_apply(lab)
    assert not (lab / "run").exists()
    node = make_root(tmp_path, BASE, name="node")
    (node / "run/lock").mkdir(parents=True)
    run_apply(node)
    assert sorted(p.name for p in (node / "run").rglob("*")) == ["lock"]


LOCKER = r"""
import os, sys, time
sys.path.insert(0, sys.argv[3])
from runbook_lib.fs.lock import RootLock
from runbook_lib.fs.target import Target
root, log = sys.argv[1], sys.argv[2]
for _ in range(40):
    with RootLock(Target(root)):
        fd = os.open(log, os.O_WRONLY | os.O_APPEND)
        os.write(fd, b"in %d\n" % os.getpid()); time.sleep(0.001); os.write(fd, b"out %d\n" % os.getpid())
        os.close(fd)
"""


def test_a_lock_removed_at_release_is_never_held_by_two_runs(tmp_path):
    """Four processes take and release the lock 40 times each while its file and folders come and go: every
    'in' is followed by its own 'out' before anyone else's 'in' (a waiter that got the lock on a removed file
    takes it again on the file as it is)."""
    root = make_root(tmp_path)
    log = tmp_path / "log"
    log.write_text("")
    procs = [subprocess.Popen([sys.executable, "-c", LOCKER, str(root), str(log), str(REPO / "tests")])
             for _ in range(4)]
    assert [p.wait(timeout=300) for p in procs] == [0, 0, 0, 0]
    lines = log.read_text().splitlines()
    assert len(lines) == 4 * 40 * 2
    pairs = list(zip(lines[::2], lines[1::2]))
    assert [a.split()[0] for a, _ in pairs] == ["in"] * len(pairs)
    assert [b.split()[0] for _, b in pairs] == ["out"] * len(pairs)
    assert [(a, b) for a, b in pairs if a.split()[1] != b.split()[1]] == []  # its own 'out', before any other 'in'

    assert not (root / "run/lock" / LOCK_NAME).exists()  # the folders stay when runs overlapped (GUARANTEES, 3)
