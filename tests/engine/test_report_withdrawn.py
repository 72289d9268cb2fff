"""A failed apply run leaves no report.txt claiming success; the earlier report's bytes are kept as a backup."""

import papermill
import pytest

from helpers import run_notebook


def test_failed_run_moves_the_old_report_to_a_backup(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    run_notebook(root, tmp_path / "ok.ipynb")
    report = root / "root/toolkit/report.txt"
    old = report.read_bytes()
    # a run that fails after its writes (here: the containerd it is told to ask is no containerd at all)
    config = root / "etc/containerd/config.toml"
    config.write_text(config.read_text().replace("SystemdCgroup = true", 'SystemdCgroup = "true"'))
    with pytest.raises(papermill.PapermillExecutionError):
        run_notebook(root, tmp_path / "failed.ipynb", containerd_bin="/bin/false")
    assert not report.exists()
    backups = list(report.parent.glob("report.txt.runbook-backup-*"))
    assert [b.read_bytes() for b in backups] == [old]
    assert "report.txt" in (tmp_path / "failed.ipynb").read_text()


def test_check_mode_never_moves_the_report(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    run_notebook(root, tmp_path / "ok.ipynb")
    config = root / "etc/containerd/config.toml"
    config.write_text(config.read_text().replace("SystemdCgroup = true", 'SystemdCgroup = "true"'))
    with pytest.raises(papermill.PapermillExecutionError):
        run_notebook(root, tmp_path / "check.ipynb", mode="check")
    assert (root / "root/toolkit/report.txt").exists()


def test_a_refused_run_leaves_the_report_as_it_was(tmp_path):
    """A plan that refuses writes nothing at all, the earlier report included (it is not moved either)."""
    from helpers import tree_state
    root = tmp_path / "root"
    root.mkdir()
    run_notebook(root, tmp_path / "ok.ipynb")
    config = root / "etc/containerd/config.toml"
    config.write_text(config.read_text() + "\n[broken\n")
    before = {k: v for k, v in tree_state(root).items() if not k.startswith("run")}
    with pytest.raises(papermill.PapermillExecutionError):
        run_notebook(root, tmp_path / "refused.ipynb")
    assert {k: v for k, v in tree_state(root).items() if not k.startswith("run")} == before
