"""Crashes: a run killed with SIGKILL at any moment leaves every file old or new and parseable, never partial or
empty, and the next run completes. And no target file is ever opened for writing in place.

How the kill points are found without any hook in the product: a forked child runs the steps with a
`sys.addaudithook` hook that counts every file-system change under the root (open for writing, rename, link,
unlink, mkdir, chmod) and SIGKILLs its own process right before the k-th one. k runs over every change of a
whole run, so every gap between two changes is a kill point. Every kill point also checks that a changed target
has its backup first. Kills at random moments of a separate process (independent of Python's audit events, so
not deterministic) are a soak run in bench/crash_soak.py, not a test.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from reliability_helpers import BASE, CDI, CONFIG, TOOLKIT, TOOLKIT_FILES, make_root, run_apply, settled, statuses
from runbook_lib.fs.lock import LOCK_NAME
from runbook_lib.engine.result import FAILED
from runbook_lib.fs.safe_write import BACKUP_INFIX, TMP_PREFIX
from runbook_lib.fs.target import Target

DROPIN = "etc/containerd/conf.d/99-nvidia.toml"
TARGETS = (CONFIG, CDI, DROPIN) + tuple(f"{TOOLKIT}/{name}" for name in TOOLKIT_FILES)
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
CHANGE_EVENTS = {"os.rename", "os.link", "os.remove", "os.rmdir", "os.mkdir", "os.chmod", "os.chown",
                 "os.truncate", "shutil.copyfile", "shutil.move", "os.symlink"}


def _under(root: str, value) -> bool:
    return isinstance(value, (str, bytes, os.PathLike)) and os.fsdecode(value).startswith(root + "/")


def _is_the_locks(root: str, event: str, args: tuple) -> bool:
    """The lock's own comings and goings (fs/lock.py): its file made and removed, its folders made and removed."""
    path = Path(str(args[0])) if args and isinstance(args[0], (str, bytes, os.PathLike)) else None
    if path is None:
        return False
    lock = Path(root) / "run/lock" / LOCK_NAME
    return path == lock or (event in ("os.mkdir", "os.rmdir") and path in (Path(root) / "run", Path(root) / "run/lock"))


def _is_change(root: str, event: str, args: tuple) -> bool:
    if event == "open":
        path, _mode, flags = args
        return _under(root, path) and isinstance(flags, int) and bool(flags & WRITE_FLAGS)
    if event in CHANGE_EVENTS:
        # fchmod/fchown on the temp file's descriptor (an int) are part of the write under the root
        return any(_under(root, a) for a in args) or (event in ("os.chmod", "os.chown") and isinstance(args[0], int))
    return False


def run_in_child(root: Path, *, kill_at: int | None = None, record: Path | None = None, params: dict | None = None) -> int:
    """Fork; the child runs all steps, killing itself right before change number `kill_at` (1-based) or
    recording every audited file event to `record`. Returns the child's wait status."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 70
        try:
            base = str(root)
            count = 0
            log = open(record, "w") if record else None

            def hook(event, args):
                nonlocal count
                if log is not None and (event == "open" or event in CHANGE_EVENTS):
                    log.write(repr((event, tuple(a if isinstance(a, (str, int, type(None))) else os.fsdecode(a)
                                                 if isinstance(a, (bytes, os.PathLike)) else repr(a) for a in args))) + "\n")
                if _is_change(base, event, args):
                    count += 1
                    if kill_at is not None and count == kill_at:
                        os.kill(os.getpid(), signal.SIGKILL)

            sys.addaudithook(hook)
            results = run_apply(root, **(params or {}))
            if log is not None:
                log.write(repr(("count", count)) + "\n")
                log.close()
            code = 0 if FAILED not in statuses(results) else 1
        except BaseException:
            code = 71
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return status


def _count_changes(root: Path, params: dict | None = None) -> int:
    log = root.parent / "events.log"
    status = run_in_child(root, record=log, params=params)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    last = log.read_text().splitlines()[-1]
    return eval(last)[1]  # noqa: S307 - our own repr


def _state(root: Path) -> dict[str, bytes | None]:
    return {t: (root / t).read_bytes() if (root / t).exists() else None for t in TARGETS}


def _assert_parseable(rel: str, data: bytes) -> None:
    assert data, f"{rel} is empty"
    if rel.endswith(".toml"):
        tomllib.loads(data.decode())
    elif rel.endswith(".yaml"):
        assert isinstance(yaml.safe_load(data), dict)
    elif rel.endswith("cdi-keys.txt"):  # one top-level key of the spec a line
        assert data.endswith(b"\n") and all(re.fullmatch(rb"[A-Za-z]+", k) for k in data.splitlines()), data
    else:  # KEY=value lines
        assert data.endswith(b"\n") and all(re.fullmatch(rb"[A-Z_]+=.*", k) for k in data.splitlines()), data


def _assert_old_or_new(root: Path, old: dict, new: dict, where: str, between: dict | None = None) -> None:
    """Each target is its old bytes, its new bytes, or (`between`) a complete state a finished step leaves
    (on a fresh root, step 1's copy of the base config before step 2 edits it)."""
    between = between or {}
    for rel in TARGETS:
        path = root / rel
        now = path.read_bytes() if path.exists() else None
        legit = (old[rel], new[rel], *between.get(rel, ()))
        assert now in legit, f"{where}: {rel} is neither the old nor the new file: {(now or b'')[:80]!r}"
        if now is not None and now != old[rel]:  # the user's own old bytes are whatever they were
            _assert_parseable(rel, now)
    backed_up: dict[str, set[bytes]] = {}
    for backup in root.rglob(f"*{BACKUP_INFIX}*"):
        original = backup.name.split(BACKUP_INFIX)[0]
        legit = {s for t in TARGETS if t.endswith("/" + original) for s in (old[t], *between.get(t, ()))} - {None}
        assert backup.read_bytes() in legit, f"{where}: backup {backup.name} is not a complete old file"
        backed_up.setdefault(str(backup.parent.relative_to(root) / original), set()).add(backup.read_bytes())
    # A changed target always has its backup first: every complete state it has left is kept in a backup,
    # but for a file the run created (its every state is the runbook's own bytes, made again by the runbook)
    for rel in TARGETS:
        if old[rel] is None:
            continue
        path = root / rel
        now = path.read_bytes() if path.exists() else None
        history = [s for s in (old[rel], *between.get(rel, ()), new[rel]) if s is not None]
        left = history[:history.index(now)] if now in history else []
        for state in left:
            assert state in backed_up.get(rel, set()), \
                f"{where}: {rel} changed, but no backup holds what it was before: {state[:80]!r}"


def _assert_recovers(root: Path, new: dict, where: str, params: dict | None = None) -> None:
    results = run_apply(root, **(params or {}))
    assert FAILED not in statuses(results), (where, [(r.step, r.status, r.message.en) for r in results])
    assert _state(root) == new, f"{where}: the next run did not reach the same end state"
    leftovers = [p for p in root.rglob(f"{TMP_PREFIX}*")]
    assert leftovers == [], f"{where}: temp files left after the next run: {leftovers}"


SCENARIOS = {  # name: (make the root, complete in-between states, parameters)
    "existing-config": (lambda tmp: make_root(tmp, BASE), {}, {}),
    "fresh-root": (lambda tmp: make_root(tmp), {CONFIG: (BASE,)}, {}),
    "dropin-layout": (lambda tmp: make_root(tmp, BASE), {}, {"layout": "dropin"}),
}  # (an empty config behaves as a fresh root: step 1 replaces it with the base, backed up)


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_sigkill_before_every_change_leaves_old_or_new(tmp_path, scenario):
    make, between, params = SCENARIOS[scenario]
    template = make(tmp_path / "template")
    old = _state(template)
    reference = tmp_path / "reference"
    shutil.copytree(template, reference, symlinks=True)
    total = _count_changes(reference, params)
    new = _state(reference)
    assert total >= 20, f"only {total} changes counted: the hook does not see the writes"
    assert all(new[t] for t in TARGETS if t != DROPIN) and bool(new[DROPIN]) == bool(params)
    killed = 0
    for k in range(1, total + 1):
        root = tmp_path / f"kill-{k}"
        shutil.copytree(template, root, symlinks=True)
        status = run_in_child(root, kill_at=k, params=params)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, f"kill point {k} not reached"
        killed += 1
        where = f"{scenario}, killed before change {k}/{total}"
        _assert_old_or_new(root, old, new, where, between)
        _assert_recovers(root, new, where, params)
        if k == total:
            assert settled(run_apply(root, **params)), "a recovered root is as settled as any"
        shutil.rmtree(root)
    assert killed == total


# --- nothing is opened for writing in place --------------------------------------------------------------------

def _events(log: Path) -> list[tuple]:
    return [eval(line) for line in log.read_text().splitlines()[:-1]]  # noqa: S307 - our own repr


IN_PLACE_SCENARIOS = {
    "fresh-root": lambda tmp: make_root(tmp),
    "existing-config": lambda tmp: make_root(tmp, BASE),
    "empty-config": lambda tmp: make_root(tmp, b""),
}


def _link_scenario(tmp: Path) -> Path:
    root = make_root(tmp)
    (root / "srv").mkdir()
    (root / "srv/config.toml").write_bytes(BASE)
    os.symlink("/srv/config.toml", root / CONFIG)
    return root


IN_PLACE_SCENARIOS["config-symlink"] = _link_scenario


@pytest.mark.parametrize("scenario", list(IN_PLACE_SCENARIOS) + ["dropin-layout"])
def test_no_target_is_opened_for_writing_in_place(tmp_path, scenario):
    dropin = scenario == "dropin-layout"
    root = make_root(tmp_path, BASE) if dropin else IN_PLACE_SCENARIOS[scenario](tmp_path)
    log = tmp_path / "events.log"
    status = run_in_child(root, record=log, params={"layout": "dropin"} if dropin else None)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    events = _events(log)
    renamed = set()
    base = str(root) + "/"
    for event, args in events:
        if event == "open" and isinstance(args[0], str) and args[0].startswith(base) and args[2] & WRITE_FLAGS:
            path = Path(args[0])
            if path.name == LOCK_NAME and path.parent == root / "run/lock":
                continue
            assert path.name.startswith(TMP_PREFIX), f"opened for writing in place: {path} ({event} {args})"
            assert args[2] & os.O_EXCL and args[2] & os.O_CREAT, f"temp file not created exclusively: {path}"
        elif event == "os.rename" and str(args[1]).startswith(base):
            src, dst = Path(args[0]), Path(args[1])
            assert src.name.startswith(TMP_PREFIX) and src.parent == dst.parent, (src, dst)
            assert not dst.is_symlink(), f"a rename replaced a symbolic link: {dst}"
            renamed.add(dst)
        elif event == "os.link" and str(args[1]).startswith(base):
            src, dst = Path(args[0]), Path(args[1])
            assert src.name.startswith(TMP_PREFIX) and BACKUP_INFIX in dst.name and src.parent == dst.parent
        elif event in ("os.remove", "os.truncate") and str(args[0]).startswith(base):
            if _is_the_locks(str(root), event, args):
                continue
            assert Path(args[0]).name.startswith(TMP_PREFIX), f"{event} of a non-temp file: {args[0]}"
    target = Target(root)
    expected = {target.resolve("/" + t) for t in TARGETS if dropin or t != DROPIN}
    assert expected <= renamed, f"targets not written by a rename: {expected - renamed}"


def test_second_run_opens_nothing_for_writing(tmp_path):
    root = make_root(tmp_path, BASE)
    run_apply(root)
    log = tmp_path / "events.log"
    assert os.WEXITSTATUS(run_in_child(root, record=log)) == 0
    writes = [(e, a) for e, a in _events(log) if _is_change(str(root), e, a)
              and not _is_the_locks(str(root), e, a)]
    assert writes == []
