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
    assert "written" in first.stdout and f"runbook check --step 1 {root}" in first.stdout and "lab.ipynb" in first.stdout
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


def test_list_names_every_mistake_kind_in_both_languages():
    from runbook_lib.lab.mistakes import MISTAKES

    proc = runbook("lab-init", "--list")
    assert proc.returncode == 0
    for m in MISTAKES:
        assert f"  {m.kind} " in proc.stdout and m.name.ko in proc.stdout and m.name.en in proc.stdout
        assert f"{m.name.en}  → 단계 / step: {m.step}" in proc.stdout


def test_a_mistake_is_made_once_and_a_second_run_changes_nothing(tmp_path):
    from helpers import tree_state

    root = tmp_path / "quiz"
    first = runbook("lab-init", "--mistake", "string-boolean,missing-report", root)
    assert first.returncode == 0, first.stderr
    assert "+ string-boolean" in first.stdout and "+ missing-report" in first.stdout
    config = (root / "etc/containerd/config.toml").read_text()
    assert 'SystemdCgroup = "true"' in config and config.count("SystemdCgroup = true") == 1  # runc's is untouched
    assert not (root / "root/toolkit/report.txt").exists()
    assert (root / "root/toolkit/runtimeclass.yaml").exists()  # the rest of the lab is finished
    # no backup gives the answer away
    assert not [p for p in (root / "root/toolkit").iterdir() if "backup" in p.name]
    assert not [p for p in (root / "etc/containerd").iterdir() if "backup" in p.name and
                b'SystemdCgroup = true\n' in p.read_bytes() and b"nvidia" in p.read_bytes()]
    before = tree_state(root)
    again = runbook("lab-init", "--mistake", "string-boolean,missing-report", root)
    assert again.returncode == 0 and again.stdout.count("already there") == 2
    assert tree_state(root) == before


def test_a_mistake_with_no_place_in_the_folder_is_refused(tmp_path):
    root = tmp_path / "quiz"
    assert runbook("lab-init", "--mistake", "unquoted-header", root).returncode == 0
    proc = runbook("lab-init", "--mistake", "wrong-version-path", root)  # the header it edits is gone
    assert proc.returncode == 2 and "has no place for the mistake wrong-version-path" in proc.stderr
    assert "자리가 없습니다" in proc.stderr
    unknown = runbook("lab-init", "--mistake", "nope", tmp_path / "other")
    assert unknown.returncode == 2 and "unknown mistake kind: nope" in unknown.stderr
    assert not (tmp_path / "other").exists()


def test_finished_is_the_answer_key(tmp_path):
    proc = runbook("lab-init", "--finished", tmp_path / "key")
    assert proc.returncode == 0, proc.stderr
    assert "RUNTIMES=runc,nvidia" in (tmp_path / "key/root/toolkit/parsed.txt").read_text()


def test_lab_init_on_a_file_is_refused_in_both_languages(tmp_path):
    """It used to end in a FileExistsError traceback from os.makedirs."""
    root = tmp_path / "a-file"
    root.write_text("not a folder\n")
    proc = runbook("lab-init", root)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "root is a file, not a folder" in proc.stderr and "폴더가 아니라 파일" in proc.stderr
    assert root.read_text() == "not a folder\n"
