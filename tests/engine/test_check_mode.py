"""Check mode grades whatever is under the root and writes nothing: every step is evaluated, a correct root
passes, a root with two mistakes reports both, and the whole tree (file list, contents, modes, mtimes) is the
same afterwards: no lock file, no backup, no toolkit file. A few states go through papermill for the exit code."""

from __future__ import annotations

import pytest

from grading_helpers import CONFIG, GOOD, BROKEN, broken, check, errors, failed_steps, good_with, lab_root, \
    papermill, step_records, tree, verdict

BROKEN_NAMES = sorted(p.name for p in BROKEN.glob("*.toml"))


def test_correct_root_passes_every_step(tmp_path):
    results = check(lab_root(tmp_path))
    assert [r.status for r in results.values()] == ["passed"] * 8


@pytest.mark.parametrize("name", BROKEN_NAMES)
def test_check_mode_leaves_every_byte(tmp_path, name):
    root = lab_root(tmp_path, broken(name))
    before = tree(root)
    results = check(root)
    assert failed_steps(results)
    assert tree(root) == before


def test_check_mode_on_an_empty_root_creates_nothing(tmp_path):
    root = tmp_path / "empty"
    root.mkdir()
    results = check(root)
    assert list(root.iterdir()) == []  # no folders, no lock, no config, no spec, no toolkit files
    # every step evaluated, none skipped: what only follows from the missing config waits for it (blocked)
    assert failed_steps(results) == [1, 6, 7, 8]  # the missing config counted once, at step 1 (issue 41)
    assert [n for n, r in results.items() if r.status == "blocked"] == [2, 3, 4, 5]
    assert "missing" in results[1].problems[0].what.en


def _only_config(root):
    (root / CONFIG).parent.mkdir(parents=True)
    (root / CONFIG).write_bytes(GOOD.read_bytes())


def _root_state(root):
    """The whole tree's hashes, and the root folder's own mode and mtime (a created entry changes both)."""
    st = root.stat()
    return tree(root), st.st_mode, st.st_mtime_ns


ROOTS_WITH_FOLDERS_MISSING = {"empty": lambda root: None, "only-config-toml": _only_config}


@pytest.mark.parametrize("how", ["library", "papermill"])
@pytest.mark.parametrize("kind", sorted(ROOTS_WITH_FOLDERS_MISSING))
def test_check_mode_writes_nothing_where_folders_are_missing(tmp_path, kind, how):
    root = tmp_path / "root"
    root.mkdir()
    ROOTS_WITH_FOLDERS_MISSING[kind](root)
    before = _root_state(root)
    if how == "library":
        assert failed_steps(check(root))  # no spec, no toolkit files: check mode must say so, not make them
    else:
        proc = papermill(root, tmp_path / "out.ipynb", "-p", "mode", "check")
        assert proc.returncode != 0, proc.stdout + proc.stderr
    assert _root_state(root) == before


def test_check_mode_with_a_lock_file_present_does_not_touch_it(tmp_path):
    root = lab_root(tmp_path)
    lock = root / "run" / "lock" / "nvidia-runtime-runbook.lock"  # another run's lock, or one an older version left
    lock.parent.mkdir(parents=True)
    lock.write_text("")
    before = tree(root)
    check(root)
    assert tree(root) == before


def test_two_mistakes_are_both_reported(tmp_path):
    text = broken("systemdcgroup-string.toml").decode().replace('default_runtime_name = "runc"',
                                                               'default_runtime_name = "nvidia"')
    results = check(lab_root(tmp_path, text.encode()))
    verdict(results, 3, 'SystemdCgroup is the string "true"')
    verdict(results, 4, "default_runtime_name is nvidia")


def test_two_mistakes_in_one_step_are_both_reported(tmp_path):
    text = broken("runtimetype-typo.toml").decode().replace('BinaryName = "/usr/bin/nvidia-container-runtime"',
                                                           'BinaryName = "nvidia-container-runtime"')
    results = check(lab_root(tmp_path, text.encode()))
    verdict(results, 2, "does not know: runtimetype")
    verdict(results, 3, "is not an absolute path")


def test_check_mode_never_states_another_steps_repair(tmp_path):
    """A wrong option is step 3's finding: step 2 (which writes the options with the runtime table in apply mode)
    says neither the repair nor its diff in check mode, so the student meets the mistake at step 3."""
    results = check(lab_root(tmp_path, broken("systemdcgroup-string.toml")))
    r = results[2]
    assert r.status == "passed"  # the runtime table is there; the wrong option is step 3's verdict
    assert r.diff is None
    # what it found (issue 51): the table containerd reads, never the options' repair
    assert r.message.en == ('/etc/containerd/config.toml: containerd reads the [plugins."io.containerd.grpc.v1.cri"'
                            '.containerd.runtimes.nvidia] table, runtime_type = "io.containerd.runc.v2".')
    assert not any("SystemdCgroup" in n.en for n in r.notes)
    assert results[3].failed and results[3].problems[0].code == "options.systemd_cgroup.string"


def test_check_mode_shows_the_diff_apply_would_make_for_the_steps_own_repair(tmp_path):
    text = broken("runtimetype-typo.toml").decode()
    r = check(lab_root(tmp_path, text.replace('runtimetype = "io.containerd.runc.v2"', 'runtime_type = "io.containerd.runc"').encode()))[2]
    assert '+          runtime_type = "io.containerd.runc.v2"' in r.diff
    assert r.failed and r.problems[0].code == "runtime.type_wrong"


def test_check_mode_shows_the_move_of_a_stray_table(tmp_path):
    r = check(lab_root(tmp_path, broken("unquoted-dotted-header.toml")))[2]
    assert r.failed and '+        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]' in r.diff
    assert any("is deleted and its content written under" in n.en for n in r.notes)
    assert r.problems[0].code == "runtime.misplaced.unquoted_header"


def test_a_missing_runtime_is_one_verdict(tmp_path):
    text = good_with('        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n'
                     '          runtime_type = "io.containerd.runc.v2"\n\n'
                     '          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]\n'
                     '            BinaryName = "/usr/bin/nvidia-container-runtime"\n            SystemdCgroup = true\n\n', "")
    results = check(lab_root(tmp_path, text))
    p = verdict(results, 2, "runtime.missing")
    assert "+" in results[2].diff and p.path == "/etc/containerd/config.toml"


# --- through papermill: the exit code and what the executed notebook shows ---------------------------------


def test_papermill_check_of_a_correct_root_exits_0(tmp_path):
    root = lab_root(tmp_path)
    before = tree(root)
    proc = papermill(root, tmp_path / "out.ipynb", "-p", "mode", "check")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert {n: r["status"] for n, r in step_records(tmp_path / "out.ipynb").items() if n in range(1, 9)} == \
        {n: "passed" for n in range(1, 9)}
    assert tree(root) == before


@pytest.mark.parametrize("name, step, en", [
    ("toml-syntax-error.toml", 2, "TOML syntax error (line 34, column 60)"),
    ("unquoted-dotted-header.toml", 2, "the section header lost its quotes"),
])
def test_papermill_check_of_a_broken_root_fails_with_the_verdict(tmp_path, name, step, en):
    root = lab_root(tmp_path, broken(name))
    before = tree(root)
    out = tmp_path / "out.ipynb"
    proc = papermill(root, out, "-f", "params/check.yaml")
    assert proc.returncode != 0
    records = step_records(out)
    assert set(range(1, 9)) <= set(records)  # every step evaluated, even after the first failure
    assert any(en in p["what"]["en"] and p["what"]["ko"] for p in records[step]["problems"])
    assert [e["ename"] for e in errors(out)] == ["StepFailed"]  # the summary cell ends the run, no parser traceback
    assert tree(root) == before
