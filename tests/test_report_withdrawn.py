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
    config = root / "etc/containerd/config.toml"
    config.write_text(config.read_text() + "\n[broken\n")
    with pytest.raises(papermill.PapermillExecutionError):
        run_notebook(root, tmp_path / "failed.ipynb")
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
