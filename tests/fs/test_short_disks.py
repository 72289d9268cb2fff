"""A short disk is refused before the first write, never failed halfway (fs/writable.py): on a real small tmpfs
(short of inodes, then of blocks) and a real small ext4 image (mkfs.ext4 on a file, loop-mounted; its blocks
reserved for root are not counted on), an apply run at every fill level, from "refused" to "finished", either
refuses with nothing written or finishes; no level fails a step.

Mounting needs root and a machine that allows it (a container without CAP_SYS_ADMIN does not): there these
tests are skipped, saying so."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import tree_state
from reliability_helpers import BASE, CONFIG, run_apply
from runbook_lib.findings.errors import RunbookError

FAILED = "failed"


def _mount(point: Path, *args: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root / 작은 파일 시스템을 마운트하려면 root 가 필요합니다")
    point.mkdir()
    done = subprocess.run(["mount", *args, str(point)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"this machine does not allow mounting / 이 머신은 마운트를 허용하지 않습니다: {done.stderr.strip()}")


@pytest.fixture
def tmpfs(tmp_path):
    point = tmp_path / "tmpfs"
    _mount(point, "-t", "tmpfs", "-o", "size=2m,nr_inodes=200", "tmpfs")
    yield point
    subprocess.run(["umount", "-l", str(point)], check=True)


@pytest.fixture
def ext4(tmp_path):
    image = tmp_path / "disk.img"
    with open(image, "wb") as fh:
        fh.truncate(4 * 1024 * 1024)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-b", "1024", str(image)], check=True, capture_output=True)
    point = tmp_path / "ext4"
    _mount(point, "-o", "loop", str(image))
    yield point
    subprocess.run(["umount", "-l", str(point)], check=True)


def _fresh_root(disk: Path) -> Path:
    for entry in disk.iterdir():
        if entry.name != "lost+found":
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    root = disk / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_bytes(BASE)
    os.sync()
    return root


def _apply(root: Path) -> tuple[str, dict]:
    """'refused' (nothing under the root changed), 'finished' (no step failed), or 'failed'."""
    before = tree_state(root)
    try:
        results = run_apply(root)
    except RunbookError as exc:  # the lock's own folder could not be made: nothing else was tried
        assert tree_state(root) == before, exc
        return "refused", {}
    statuses = {r.id: r.status for r in results}
    codes = {p.code for r in results for p in r.problems}
    if FAILED in statuses.values() and "write.failed.not_enough_disk_space" in codes:
        assert tree_state(root) == before, "a refusal writes nothing"
        return "refused", statuses
    return ("failed" if FAILED in statuses.values() else "finished"), statuses


def _fill_inodes(disk: Path, leave: int) -> None:
    filler = disk / "filler"
    filler.mkdir()
    n = 0
    while os.statvfs(disk).f_favail > leave:
        (filler / str(n)).touch()
        n += 1


def _fill_blocks(disk: Path, leave: int) -> None:
    """Leave ``leave`` blocks a process may use (f_bavail), in one file written to the end."""
    fs = os.statvfs(disk)
    size = max(0, (fs.f_bavail - leave)) * fs.f_frsize
    with open(disk / "filler.bin", "wb") as fh:
        fh.write(b"\0" * size)
        fh.flush()
        os.fsync(fh.fileno())
    os.sync()
    while os.statvfs(disk).f_bavail > leave:  # indirect blocks and the like: add to the file until it holds
        with open(disk / "filler.bin", "ab") as fh:
            fh.write(b"\0" * fs.f_frsize)
            fh.flush()
            os.fsync(fh.fileno())
        os.sync()


def _levels(disk: Path, fill, what: str) -> list[str]:
    """Every fill level from none free to the first that finishes, then two more: each refused or finished."""
    root = _fresh_root(disk)
    free = getattr(os.statvfs(disk), what)
    assert _apply(root)[0] == "finished"  # on the empty disk
    used = free - getattr(os.statvfs(disk), what)
    outcomes = []
    for leave in range(0, used * 4 + 16):
        root = _fresh_root(disk)
        fill(disk, leave)
        outcome, statuses = _apply(root)
        assert outcome != "failed", f"{what} {leave} left: a step failed halfway: {statuses}"
        outcomes.append(outcome)
        if outcome == "finished" and outcomes.count("finished") >= 3:
            break
    return outcomes


def _one_edge(outcomes: list[str]) -> None:
    first = outcomes.index("finished")
    assert first > 0 and set(outcomes[:first]) == {"refused"} and set(outcomes[first:]) == {"finished"}, outcomes


def test_a_tmpfs_short_of_inodes_is_refused_or_finished_at_every_level(tmpfs):
    _one_edge(_levels(tmpfs, _fill_inodes, "f_favail"))


def test_a_tmpfs_short_of_blocks_is_refused_or_finished_at_every_level(tmpfs):
    _one_edge(_levels(tmpfs, _fill_blocks, "f_bavail"))


def test_an_ext4_disk_short_of_blocks_is_refused_or_finished_at_every_level(ext4):
    _one_edge(_levels(ext4, _fill_blocks, "f_bavail"))


def test_an_ext4_disk_short_of_inodes_is_refused_or_finished_at_every_level(ext4):
    _one_edge(_levels(ext4, _fill_inodes, "f_favail"))
