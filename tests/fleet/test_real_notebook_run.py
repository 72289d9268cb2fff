"""`runbook run` with the notebook the package ships (no --notebook): the evidence of a real lab run."""

from __future__ import annotations

import hashlib

from fleet_helpers import manifest, run_dirs, runbook


def test_real_run_on_a_lab_root_archives_every_file_with_its_sha256(tmp_path):
    root, archive = tmp_path / "root", tmp_path / "archive"
    assert runbook("lab-init", root).returncode == 0
    proc = runbook("run", "--root", root, "--archive", archive, "--label", "lab")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    man = manifest(run_dirs(archive, "lab")[0])
    assert man["ok"] and man["reached_summary"] and man["notebook_runbook_version"] == man["runbook_version"]
    written = {f["path"]: f for f in man["files"] if f["action"] == "written"}
    assert "/etc/containerd/config.toml" in written
    for f in written.values():
        host = root / f["path"].lstrip("/")
        assert f["sha256"] == hashlib.sha256(host.read_bytes()).hexdigest(), f["path"]


def test_real_notebook_refuses_a_misspelt_parameter_listing_its_own(tmp_path):
    proc = runbook("run", "--root", tmp_path, "--archive", tmp_path / "a", "-p", "runtimename", "nvidia")
    assert proc.returncode == 2
    for name in ("root", "mode", "runtime_name", "binary_name", "systemd_cgroup", "cdi_spec"):
        assert name in proc.stderr


def test_a_failed_step_says_where_and_how_to_fix_it_in_the_output_and_the_manifest(tmp_path):
    """An operator reads the terminal (or a fleet's manifests), not the notebook: each error of a failed step
    is there with its file and line, both languages, and the fix."""
    root, archive = tmp_path / "root", tmp_path / "archive"
    assert runbook("lab-init", root, "--mistake", "string-boolean").returncode == 0
    proc = runbook("run", "--root", root, "--archive", archive, "--label", "s", "--mode", "check")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (options,) = [s for s in manifest(run_dirs(archive, "s")[0])["steps"] if s["id"] == "options"]
    assert options["status"] == "failed"
    (problem,) = options["problems"]
    assert problem["path"] == "/etc/containerd/config.toml" and problem["line"]
    at = f"[/etc/containerd/config.toml:{problem['line']}] "
    out = proc.stdout.splitlines()
    first = next(i for i, line in enumerate(out) if at in line)
    shown = out[first:first + 6]
    assert shown[0].endswith(at + problem["what"]["ko"])
    assert shown[1].strip() == problem["what"]["en"]
    assert f"고치기: {problem['fix']['ko']}" in [line.strip() for line in shown]
    assert f"fix: {problem['fix']['en']}" in [line.strip() for line in shown]
