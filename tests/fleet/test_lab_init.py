"""`runbook lab-init ROOT`: the course fixture, idempotent, never over a different file without --force."""

from __future__ import annotations

from importlib.resources import files

from fleet_helpers import runbook

FIXTURE = "opt/fixtures/gpu-airgap/containerd/config.toml.base"


def test_lab_init_writes_the_fixture_once(tmp_path):
    root = tmp_path / "new-root"  # lab-init also creates the root itself
    first = runbook("lab-init", root)
    assert first.returncode == 0, first.stderr
    expected = (files("runbook_lib") / "data" / "config.toml.base").read_bytes()
    assert (root / FIXTURE).read_bytes() == expected and expected.strip()
    assert "written" in first.stdout and "runbook run --root" in first.stdout
    again = runbook("lab-init", root)
    assert again.returncode == 0 and "already up to date" in again.stdout
    assert sorted(p.name for p in (root / FIXTURE).parent.iterdir()) == ["config.toml.base"]


def test_a_different_fixture_is_kept_unless_forced(tmp_path):
    root = tmp_path / "r"
    (root / FIXTURE).parent.mkdir(parents=True)
    (root / FIXTURE).write_text("# the instructor's own\n")
    refused = runbook("lab-init", root)
    assert refused.returncode == 2 and "--force" in refused.stderr and "이미 있습니다" in refused.stderr
    assert (root / FIXTURE).read_text() == "# the instructor's own\n"
    forced = runbook("lab-init", root, "--force")
    assert forced.returncode == 0
    backups = [p for p in (root / FIXTURE).parent.iterdir() if p.name != "config.toml.base"]
    assert [b.read_text() for b in backups] == ["# the instructor's own\n"]


def test_lab_init_refuses_the_real_root(tmp_path):
    proc = runbook("lab-init", "/")
    assert proc.returncode == 2 and "never '/'" in proc.stderr
    assert not (tmp_path / "opt").exists()
