"""A run killed at any moment, then mode=remove: the root is back as it was before the run, file by file.

remove undoes what a run recorded (runbook_lib/fs/applied_record.py). The record is written before the run's
first write, with every write the run plans, so no kill point can leave a file the run wrote that the record
does not know of: at every gap between two changes of a whole run (the kill points of tests/fs/test_crash.py),
remove gives every file back its bytes from before the run and takes out every file the run created."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import pytest

from reliability_helpers import BASE, make_root, run_apply
from runbook_lib.engine.params import validate
from runbook_lib.engine.result import FAILED
from runbook_lib.engine.run import Run
from runbook_lib.fs.applied_record import RECORD
from runbook_lib.fs.safe_write import BACKUP_INFIX
from test_crash import TARGETS, _count_changes, _state, run_in_child

def remove(root: Path) -> dict:
    """mode=remove, every step, as the notebook runs it."""
    rb = Run(validate(root=str(root), mode="remove")).start()
    try:
        return rb.run_all()
    finally:
        rb.finish()


SCENARIOS = {
    "existing-config": lambda tmp: make_root(tmp, BASE),
    "fresh-root": lambda tmp: make_root(tmp),
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_remove_after_a_kill_at_any_point_gives_the_root_back(tmp_path, scenario):
    template = SCENARIOS[scenario](tmp_path / "template")
    before = _state(template)
    reference = tmp_path / "reference"
    shutil.copytree(template, reference, symlinks=True)
    total = _count_changes(reference)
    assert total >= 20, f"only {total} changes counted: the hook does not see the writes"
    for k in range(1, total + 1):
        root = tmp_path / f"kill-{k}"
        shutil.copytree(template, root, symlinks=True)
        status = run_in_child(root, kill_at=k)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, f"kill point {k} not reached"
        results = remove(root)
        where = f"{scenario}, killed before change {k}/{total}, then mode=remove"
        assert not results["remove"].failed, (where, results["remove"].text())
        assert _state(root) == before, f"{where}: {[t for t in TARGETS if _state(root)[t] != before[t]]}"
        assert not (root / RECORD.lstrip("/")).exists(), f"{where}: the record is left behind"
        shutil.rmtree(root)


def test_a_recorded_file_that_holds_its_bytes_from_before_is_forgotten_not_a_reason_to_guess(tmp_path):
    """A file the record names but that holds its bytes from before any run (the run stopped before it, or a
    person put the original back) has nothing of a run in it: remove forgets it and still undoes the rest
    exactly, byte for byte, instead of falling back to table-by-table removal for every file."""
    root = make_root(tmp_path / "root", BASE)
    assert FAILED not in [r.status for r in run_apply(root)]
    report = root / "root/toolkit/report.txt"
    report.unlink()  # the run created it; it is gone: nothing to undo there
    config_backup = next((root / "etc/containerd").glob(f"config.toml{BACKUP_INFIX}*"))
    assert config_backup.read_bytes() == BASE
    results = remove(root)
    assert results["remove"].status == "changed" and not results["remove"].failed, results["remove"].text()
    assert (root / "etc/containerd/config.toml").read_bytes() == BASE  # given back exactly, not table by table
    assert not (root / "root/toolkit/default.txt").exists() and not report.exists()
    assert not (root / RECORD.lstrip("/")).exists()


def test_a_second_apply_that_rewrites_the_config_keeps_the_bytes_from_before_the_first(tmp_path):
    """The record keeps a file's bytes from before the *first* run that wrote it: a second apply with other
    parameters (SystemdCgroup = false now) writes the config again, and remove still gives back the node's
    original, not the first run's output (issue 44's audit: the record taking each run's `old` survived)."""
    from helpers import finished_run
    from runbook_lib.fs import applied_record
    from runbook_lib.fs.target import Target

    root = make_root(tmp_path, BASE)
    config = root / "etc/containerd/config.toml"
    first = finished_run(root)
    assert first.ok() and config.read_bytes() != BASE
    after_first = config.read_bytes()
    second = finished_run(root, systemd_cgroup=False)
    assert not any(r.failed for r in second.results.values())
    assert config.read_bytes() != after_first, "the second run wrote the config again"
    assert applied_record.load(Target(str(root)))["/etc/containerd/config.toml"].before == BASE
    removed = finished_run(root, mode="remove")
    assert not removed.results["remove"].failed, removed.results["remove"].text()
    assert config.read_bytes() == BASE
