"""Apply mode on a student's broken config: what is unambiguous is repaired, with the diff and a backup, and
said; what would be a guess stops the step with its verdict and writes nothing."""

from __future__ import annotations

import tomllib

import pytest

from grading_helpers import CONFIG, GOOD, TOOLKIT, broken, errors, papermill, run_all, step_records, tree

V3_RUNTIME = ("plugins", "io.containerd.cri.v1.runtime", "containerd", "runtimes", "nvidia")


def fresh_root(tmp_path, config: bytes):
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_bytes(config)
    return root


def backups(root):
    return sorted((root / "etc/containerd").glob("config.toml.runbook-backup-*"))


def test_string_boolean_is_corrected_with_diff_and_backup(tmp_path):
    original = broken("systemdcgroup-string.toml")
    root = fresh_root(tmp_path, original)
    r = run_all(root)[2]
    assert r.status == "changed"
    assert '-            SystemdCgroup = "true"\n+            SystemdCgroup = true\n' in r.diff
    # the repair is said beside what the step then found (issue 51: the message is the file as read)
    assert 'correct options.SystemdCgroup from "true" to true (line 35)' in r.notes[0].en
    assert r.message.en.startswith("/etc/containerd/config.toml: containerd reads the [")
    assert [b.read_bytes() for b in backups(root)] == [original]
    assert (root / CONFIG).read_bytes() == GOOD.read_bytes()  # only that one value changed


@pytest.mark.parametrize("name", ["unquoted-dotted-header.toml", "misplaced-runtimes-without-containerd.toml",
                                  "v1-path-in-v2-file.toml"])
def test_stray_table_is_moved_to_the_right_path(tmp_path, name):
    original = broken(name)
    root = fresh_root(tmp_path, original)
    results = run_all(root)
    r = results[2]
    assert r.status == "changed" and "is where containerd does not look" in r.notes[0].en and r.notes[0].ko
    assert r.diff and [b.read_bytes() for b in backups(root)] == [original]
    # the result reads exactly as the correct lab config: nothing else lost or added
    assert tomllib.loads((root / CONFIG).read_text()) == tomllib.loads(GOOD.read_text())
    assert not any(x.failed for x in results.values()), [x.text() for x in results.values() if x.failed]


def test_v2_table_in_v3_file_is_moved_to_the_v3_path(tmp_path):
    root = fresh_root(tmp_path, broken("v2-path-in-v3-file.toml"))
    results = run_all(root)
    data = tomllib.loads((root / CONFIG).read_text())
    assert "io.containerd.grpc.v1.cri" not in data["plugins"]
    node = data
    for part in V3_RUNTIME:
        node = node[part]
    assert node == {"runtime_type": "io.containerd.runc.v2",
                    "options": {"BinaryName": "/usr/bin/nvidia-container-runtime", "SystemdCgroup": True}}
    assert not any(x.failed for x in results.values())


def test_moved_table_gets_its_wrong_values_corrected_in_the_same_write(tmp_path):
    text = broken("misplaced-runtimes-without-containerd.toml").replace(b'SystemdCgroup = true\n\n    [plugins."io.containerd.grpc.v1.cri".cni]',
                                                                         b'SystemdCgroup = "true"\n\n    [plugins."io.containerd.grpc.v1.cri".cni]')
    root = fresh_root(tmp_path, text)
    r = run_all(root)[2]
    assert len(backups(root)) == 1 and any("correct options.SystemdCgroup" in n.en for n in r.notes)
    assert tomllib.loads((root / CONFIG).read_text()) == tomllib.loads(GOOD.read_text())


@pytest.mark.parametrize("config, en", [
    (broken("no-version-line-v2-tables.toml"), "there is no version line"),
    (broken("cri-disabled.toml"), "disabled_plugins lists the CRI plugin"),
    # a stray table next to a correct one: which one is meant is a guess
    (GOOD.read_bytes() + b'\n[plugins."io.containerd.grpc.v1.cri".runtimes.nvidia]\n  runtime_type = "io.containerd.runc.v2"\n',
     "the runtime table is misplaced"),
    # a stray table with a key containerd does not know: its content is not clear
    (broken("misplaced-runtimes-without-containerd.toml").replace(b"          runtime_type =", b"          runtimetype ="),
     "the runtime table is misplaced"),
])
def test_a_guess_stops_at_step_2_writing_nothing(tmp_path, config, en):
    root = fresh_root(tmp_path, config)
    results = run_all(root)
    assert results[2].failed and any(en in p.what.en for p in results[2].problems)
    assert (root / CONFIG).read_bytes() == config and backups(root) == []


def test_default_nvidia_stops_at_step_4_writing_no_default_txt(tmp_path):
    root = fresh_root(tmp_path, broken("default-is-nvidia.toml"))
    results = run_all(root)
    assert results[4].failed and "default_runtime_name is nvidia" in results[4].message.en
    assert not (root / TOOLKIT / "default.txt").exists()
    assert (root / CONFIG).read_bytes() == broken("default-is-nvidia.toml")


def test_apply_on_a_syntax_error_ends_in_the_steps_message_not_a_traceback(tmp_path):
    config = broken("toml-syntax-error.toml")
    root = fresh_root(tmp_path, config)
    out = tmp_path / "out.ipynb"
    proc = papermill(root, out)
    assert proc.returncode != 0
    record = step_records(out)[2]
    assert record["status"] == "failed"
    assert "TOML syntax error (line 34, column 60)" in record["message"]["en"] and "TOML 문법 오류" in record["message"]["ko"]
    errs = errors(out)
    assert [e["ename"] for e in errs] == ["Refused"]  # refused in the plan, before any write
    assert any("TOML" in line for line in errs[0]["traceback"])
    assert "tomllib" not in "".join(errs[0]["traceback"])  # the parser's own traceback never reaches the student
    assert (root / CONFIG).read_bytes() == config and backups(root) == []
    assert step_records(out)[3]["status"] == "skipped"  # a refused run writes nothing, runs no other step


def test_apply_after_repair_is_idempotent(tmp_path):
    root = fresh_root(tmp_path, broken("unquoted-dotted-header.toml"))
    run_all(root)
    before = tree(root)
    results = run_all(root)
    assert all(r.status == "unchanged" for r in results.values()), [r.status for r in results.values()]
    assert {k: v for k, v in tree(root).items() if "lock" not in k} == {k: v for k, v in before.items() if "lock" not in k}


@pytest.mark.parametrize("name, code", [("unquoted-dotted-header.toml", "runtime.misplaced.unquoted_header"),
                                        ("misplaced-runtimes-without-containerd.toml", "runtime.misplaced"),
                                        ("v1-path-in-v2-file.toml", "runtime.misplaced.v1_path")])
def test_a_misplaced_table_is_not_moved_by_a_drop_in_it_stops_step_2(tmp_path, name, code):
    """layout=dropin writes only its drop-in file: a table misplaced in config.toml is not moved there (that
    would be an edit of config.toml the layout promises not to make), so the plan refuses, saying where it is."""
    original = broken(name)
    root = fresh_root(tmp_path, original)
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run
    rb = Run(validate(root=str(root), layout="dropin")).start()
    try:
        plan = rb.preflight()["runtime"]
    finally:
        rb.finish()
    assert plan.refusals and plan.message == plan.refusals[0].what
    assert not plan.notes, [n.en for n in plan.notes]  # no "moved the table" said
    assert [(p.code, p.path, p.line) for p in plan.refusals] == [(code, "/" + CONFIG, 30)]
    results = run_all(root, layout="dropin")
    assert results[2].failed and (root / CONFIG).read_bytes() == original
    assert not (root / "etc/containerd/conf.d").exists()
