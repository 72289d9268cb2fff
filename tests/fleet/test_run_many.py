"""`runbook run --jobs N --root A --root B ...`: one archived run per root, none colliding, one exit code."""

from __future__ import annotations

from pathlib import Path

from fleet_helpers import STANDIN, manifest, run_dirs, runbook


def roots(tmp_path: Path, *names: str) -> list[Path]:
    out = []
    for name in names:
        (tmp_path / name).mkdir()
        out.append(tmp_path / name)
    return out


def many(archive: Path, rs: list[Path], *extra: str):
    return runbook("run", "--notebook", STANDIN, *[a for r in rs for a in ("--root", r)], "--archive", archive,
                   *extra)


def test_two_jobs_archive_every_root_under_its_own_label(tmp_path):
    rs = roots(tmp_path, "s01", "s02", "s03")
    archive = tmp_path / "archive"
    proc = many(archive, rs, "--jobs", "2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for r in rs:
        (run_dir,) = run_dirs(archive, r.name)
        man = manifest(run_dir)
        assert man["ok"] is True and man["parameters"]["root"] == str(r)
        assert (r / "etc/containerd/config.toml").exists()
        assert f"archive: {run_dir}" in proc.stdout
    # printed in the order the roots were given, whatever order they finished in
    assert [proc.stdout.index(f"== {r.name} ") for r in rs] == sorted(proc.stdout.index(f"== {r.name} ") for r in rs)
    # kernels talk over private IPC sockets: no TCP warning, and nothing left behind in the working folder
    assert "running over TCP" not in proc.stderr


def test_one_failing_root_fails_the_command_and_the_others_still_run(tmp_path):
    rs = roots(tmp_path, "good", "fine")
    archive = tmp_path / "archive"
    proc = many(archive, rs + [tmp_path / "gone"], "--jobs", "2", "--label", "class")
    assert proc.returncode == 1
    assert sorted(p.name for p in archive.iterdir()) == ["class-fine", "class-gone", "class-good"]
    assert manifest(run_dirs(archive, "class-good")[0])["ok"] is True
    assert manifest(run_dirs(archive, "class-fine")[0])["ok"] is True
    assert manifest(run_dirs(archive, "class-gone")[0])["ok"] is False


def test_the_same_root_twice_is_refused_before_anything_runs(tmp_path):
    (a,) = roots(tmp_path, "a")
    archive = tmp_path / "archive"
    proc = many(archive, [a, a], "--jobs", "2")
    assert proc.returncode == 2 and "the same root appears twice" in proc.stderr
    assert not archive.exists()


def test_two_roots_with_the_same_folder_name_get_distinct_labels(tmp_path):
    """One rule for labels (runbook_lib/evidence/labels.py): the parent folder goes in front when names collide."""
    for group in ("x", "y"):
        (tmp_path / group / "kim").mkdir(parents=True)
    archive = tmp_path / "archive"
    proc = many(archive, [tmp_path / "x" / "kim", tmp_path / "y" / "kim"], "--jobs", "2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(p.name for p in archive.iterdir()) == ["x-kim", "y-kim"]
    assert manifest(run_dirs(archive, "x-kim")[0])["parameters"]["root"] == str(tmp_path / "x" / "kim")


def test_jobs_must_be_positive(tmp_path):
    rs = roots(tmp_path, "a", "b")
    proc = many(tmp_path / "archive", rs, "--jobs", "0")
    assert proc.returncode == 2 and "--jobs must be at least 1" in proc.stderr
