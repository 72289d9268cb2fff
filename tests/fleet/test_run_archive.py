"""`runbook run` against the stand-in notebook: archive layout, manifest, exit codes, parameter handling."""

from __future__ import annotations

import hashlib
import socket
from pathlib import Path

import yaml

from fleet_helpers import STANDIN, manifest, run_dirs, runbook


def standin(root: Path, archive: Path, *extra: str):
    return runbook("run", "--notebook", STANDIN, "--root", root, "--archive", archive, *extra)


def test_passing_run_is_archived_with_a_complete_manifest(lab_root, tmp_path):
    archive = tmp_path / "archive"
    proc = standin(lab_root, archive, "--label", "node-a")
    assert proc.returncode == 0, proc.stderr
    (run_dir,) = run_dirs(archive, "node-a")
    assert sorted(p.name for p in run_dir.iterdir()) == ["manifest.json", "run.html", "run.ipynb"]
    assert f"archive: {run_dir}" in proc.stdout
    man = manifest(run_dir)
    assert man["ok"] is True and man["result"] == "passed" and man["label"] == "node-a"
    assert man["parameters"] == {"root": str(lab_root)}
    assert man["runbook_version"] and man["started_at"] <= man["ended_at"]
    assert man["host"]["hostname"] == socket.gethostname()
    assert [s["id"] for s in man["steps"]] == ["validate", "prepare", "runtime", "report"]
    assert [s["status"] for s in man["steps"]] == ["passed", "changed", "changed", "changed"]
    # every file a step touched is listed with the sha256 of what is on disk now
    (entry,) = man["files"]
    on_disk = lab_root / "etc/containerd/config.toml"
    assert entry["path"] == "/etc/containerd/config.toml" and entry["host_path"] == str(on_disk)
    assert entry["sha256"] == hashlib.sha256(on_disk.read_bytes()).hexdigest()
    for name in ("run.ipynb", "run.html"):
        assert man["artifacts"][name]["sha256"] == hashlib.sha256((run_dir / name).read_bytes()).hexdigest()
    assert "prepare changed" in (run_dir / "run.html").read_text(encoding="utf-8")


def test_failing_step_in_apply_mode_stops_the_run_and_exits_1(lab_root, tmp_path):
    archive = tmp_path / "archive"
    proc = standin(lab_root, archive, "--label", "bad", "-p", "fail_step", "2")
    assert proc.returncode == 1
    (run_dir,) = run_dirs(archive, "bad")
    man = manifest(run_dir)
    assert man["ok"] is False and man["failed_step"]["id"] == "runtime"
    assert man["error"]["kind"] == "cell" and man["error"]["ename"] == "RuntimeError"
    assert "report" not in [s["id"] for s in man["steps"]]  # apply stops at the first failure
    assert "runtime broke on purpose" in proc.stdout and "일부러 실패" in proc.stdout
    assert (run_dir / "run.ipynb").exists() and (run_dir / "run.html").exists()


def test_check_mode_runs_every_step_and_still_fails(lab_root, tmp_path):
    archive = tmp_path / "archive"
    proc = standin(lab_root, archive, "--label", "chk", "--mode", "check", "-p", "fail_step", "2")
    assert proc.returncode == 1
    man = manifest(run_dirs(archive, "chk")[0])
    assert man["mode"] == "check"
    assert [s["status"] for s in man["steps"]] == ["passed", "passed", "failed", "passed"]
    assert not (lab_root / "etc").exists()  # check mode of the stand-in writes nothing


def test_a_run_that_never_reaches_its_summary_is_failed(tmp_path):
    archive = tmp_path / "archive"
    missing = tmp_path / "does-not-exist"
    proc = standin(missing, archive, "--label", "gone")
    assert proc.returncode == 1
    man = manifest(run_dirs(archive, "gone")[0])
    assert man["reached_summary"] is False and man["ok"] is False
    assert man["error"]["ename"] == "AssertionError"


def test_unknown_parameter_is_refused_in_both_languages(lab_root, tmp_path):
    archive = tmp_path / "archive"
    proc = standin(lab_root, archive, "-p", "runtime_nmae", "nvidia")
    assert proc.returncode == 2
    assert "이 노트북에 없는 파라미터입니다: runtime_nmae (뜻한 파라미터는 runtime_name 인 듯합니다)" in proc.stderr
    assert "unknown parameter: runtime_nmae (meaning runtime_name, it seems)" in proc.stderr
    assert "root, mode, runtime_name, fail_step" in proc.stderr
    assert not archive.exists()  # refused before anything ran


def test_unknown_parameter_from_a_params_file_is_refused(lab_root, tmp_path):
    params = tmp_path / "p.yaml"
    params.write_text("systemd_cgroupp: true\n")
    proc = standin(lab_root, tmp_path / "archive", "-f", params)
    assert proc.returncode == 2 and "systemd_cgroupp" in proc.stderr


def test_params_file_then_p_then_flags_later_wins_and_values_are_read_as_papermill_reads_them(lab_root, tmp_path):
    params = tmp_path / "p.yaml"
    params.write_text(yaml.safe_dump({"runtime_name": "from-file", "fail_step": 0, "mode": "check"}))
    archive = tmp_path / "archive"
    proc = standin(lab_root, archive, "--label", "t", "-f", params, "-p", "runtime_name", "123",
                   "--mode", "apply")
    assert proc.returncode == 0, proc.stderr
    man = manifest(run_dirs(archive, "t")[0])
    # -p 123 is the number 123, as papermill's own -p gives it (the notebook's validation reads it as the text
    # "123": tests/engine/test_params_one_parser.py); mode from --mode beats the file
    assert man["parameters"] == {"runtime_name": 123, "fail_step": 0, "mode": "apply", "root": str(lab_root)}


def test_a_value_is_judged_by_the_notebook_not_by_the_command(lab_root, tmp_path):
    """`runbook run` judges no value itself (the notebook's validation does, as with papermill): "two" for the
    stand-in's int parameter reaches the notebook as the text papermill would give it."""
    archive = tmp_path / "archive"
    proc = standin(lab_root, archive, "--label", "t", "-p", "fail_step", "two")
    assert proc.returncode == 0, proc.stderr
    assert manifest(run_dirs(archive, "t")[0])["parameters"]["fail_step"] == "two"


def test_label_defaults_to_the_folder_name_and_runs_never_collide(lab_root, tmp_path):
    archive = tmp_path / "archive"
    for _ in range(2):
        assert standin(lab_root, archive).returncode == 0
    dirs = run_dirs(archive, lab_root.name)  # the same rule as with several roots (runbook_lib/evidence/labels.py)
    assert len(dirs) == 2


def test_the_label_of_the_real_root_is_the_host_name():
    from runbook_lib.evidence.labels import for_roots

    assert for_roots(["/"]) == [socket.gethostname()]
    assert for_roots(["/"], "node-a") == ["node-a"]


def test_new_run_dir_suffixes_a_second_run_in_the_same_second(tmp_path):
    import datetime as dt

    from runbook_lib.evidence.archive import new_run_dir

    when = dt.datetime(2025, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
    first, second = new_run_dir(tmp_path, "x", when), new_run_dir(tmp_path, "x", when)
    assert (first.name, second.name) == ("20250102T030405Z", "20250102T030405Z-2")


def test_an_archive_that_cannot_be_made_is_refused_before_any_run(lab_root, tmp_path):
    """--archive naming a file (or a path through one) ended in a NotADirectoryError traceback."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    for archive, en, ko in ((blocker, "--archive is a file, not a folder", "파일입니다"),
                            (blocker / "runs", "Not a directory", "만들 수 없습니다")):
        proc = runbook("run", "--root", lab_root, "--archive", archive, "--notebook", STANDIN)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert en in proc.stderr and ko in proc.stderr, proc.stderr
    assert blocker.read_text() == "not a folder\n"


def test_an_archive_through_a_link_to_nothing_says_so(lab_root, tmp_path):
    """/var/lib/nvidia-runtime-runbook linked to a mount that is not mounted: was "(File exists)"."""
    (tmp_path / "state").symlink_to(tmp_path / "not-mounted")
    proc = runbook("run", "--root", lab_root, "--archive", tmp_path / "state" / "archive", "--notebook", STANDIN)
    assert proc.returncode == 2 and "File exists" not in proc.stderr, proc.stderr
    assert f"points to nothing: {tmp_path / 'state'} → {tmp_path / 'not-mounted'}" in proc.stderr
    assert "링크가 없는 곳을 가리킵니다" in proc.stderr and not (tmp_path / "not-mounted").exists()


def test_a_relative_root_is_the_folder_where_the_command_was_typed(tmp_path):
    """`runbook run --root lab`: was archived as a failed run (the notebook's "root must be an absolute path"),
    while `runbook grade lab` grades the same folder."""
    from runbook_lib.lab.init_root import finished_lab

    finished_lab(str(tmp_path / "lab"))
    proc = runbook("run", "--root", "lab", "--mode", "check", "--archive", "archive", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (run_dir,) = run_dirs(tmp_path / "archive", "lab")
    assert manifest(run_dir)["root"] == str(tmp_path / "lab")


def test_a_label_of_spaces_is_refused_before_anything_runs(lab_root, tmp_path):
    # `--label " "` made an archive folder named with a space, which no listing tells apart
    proc = standin(lab_root, tmp_path / "archive", "--label", " ")
    assert proc.returncode == 2 and "--label begins or ends with a space" in proc.stderr, proc.stderr
    assert "--label 의 앞뒤에 공백이" in proc.stderr and not (tmp_path / "archive").exists()
