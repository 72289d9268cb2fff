"""Mistakes students make by hand in the CDI spec and its folder: a copy left beside it, another name, a field
the registry does not know, a tab. Each is what the CDI registry itself does (podman:
tests/real/test_real_podman_cdi.py), said with the line and the fix."""

from __future__ import annotations

import os

import pytest

from grading_helpers import SPEC, TOOLKIT, check, failed_steps, lab_root, tree, verdict
from mistake_helpers import edit


def test_a_tab_in_the_cdi_spec_is_named(tmp_path):
    root = lab_root(tmp_path)
    edit(root, SPEC, "  - name: all", "\t- name: all")
    results = check(root)
    assert failed_steps(results) == [6]
    p = verdict(results, 6, "yaml.tab_indent")
    assert (p.line, p.col) == (6, 1) and "탭" in p.what.ko


@pytest.mark.parametrize("copy, code", [
    ("etc/cdi/nvidia-old.yaml", "cdi.conflicting_spec"),  # the registry reads it: the device is dropped
    ("etc/cdi/nvidia.json", "cdi.conflicting_spec"),
    ("etc/cdi/nvidia.yaml.orig", None),  # never read (tests/real/test_real_podman_cdi.py)
    ("etc/cdi/nvidia.yaml~", None),  # vi's backup
])
def test_a_copy_of_the_spec_in_its_folder(tmp_path, copy, code):
    root = lab_root(tmp_path)
    (root / copy).write_bytes((root / SPEC).read_bytes())
    before = tree(root)
    results = check(root)
    assert tree(root) == before
    if code is None:
        assert not failed_steps(results)
        return
    assert failed_steps(results) == [6]
    p = verdict(results, 6, code)
    assert p.path == f"/{copy}" and "unresolvable CDI devices nvidia.com/gpu=all" in p.what.en
    assert f"/{copy}" in p.fix.en and f"/{copy}" in p.fix.ko


@pytest.mark.parametrize("moved, code", [
    ("etc/cdi/nvidia.json", "cdi.spec_elsewhere"),
    ("var/run/cdi/nvidia.yaml", "cdi.spec_elsewhere"),
    ("etc/cdi/nvidia.yml", "cdi.spec_unread_name"),
])
def test_a_spec_saved_under_another_name_is_found_with_the_mv(tmp_path, moved, code):
    root = lab_root(tmp_path)
    (root / moved).parent.mkdir(parents=True, exist_ok=True)
    (root / SPEC).rename(root / moved)
    results = check(root)
    assert failed_steps(results) == [6]
    p = verdict(results, 6, code)
    at = os.path.realpath(root)  # the mv as pasted: under the root (issue 51)
    assert p.path == "/etc/cdi/nvidia.yaml" and p.fix.en == f"mv {at}/{moved} {at}/etc/cdi/nvidia.yaml"


@pytest.mark.parametrize("old, new, code, line, fix", [
    ("\ncontainerEdits:\n", "\ncontainerEdit:\n", "cdi.unknown_field.typo", 10, "write the key as: containerEdits"),
    ("  env:\n", "  envs:\n", "cdi.unknown_field.typo", 14, "write the key as: env"),
    ("  - name: all\n", "  - name: all\n    description: every GPU\n", "cdi.unknown_field", 7,
     "delete the description line"),
    ("kind: nvidia.com/gpu\n", "kind: nvidia.com/gpu\nkind: nvidia.com/gpu\n", "cdi.duplicate_key", 5,
     "keep one of lines 4 and 5: kind"),
])
def test_a_spec_the_cdi_registry_refuses_to_decode_fails_step_6(tmp_path, old, new, code, line, fix):
    # the registry decodes strictly (podman: tests/real/test_real_podman_cdi.py); the schema allows both
    root = lab_root(tmp_path)
    edit(root, SPEC, old, new)
    results = check(root)
    assert failed_steps(results) == [6]
    p = verdict(results, 6, code)
    assert (p.path, p.line) == ("/etc/cdi/nvidia.yaml", line) and p.fix.en.startswith(fix)


@pytest.mark.parametrize("spec, fix", [
    ('cdiVersion: "0.5.0"\nkind: nvidia.com/gpu\ndevices:\n  - name: all\n', "inside the device, as deep as its name:"),
    ('cdiVersion: "0.5.0"\nkind: nvidia.com/gpu\n', "at the top level write devices:, under it - name: all"),
])
def test_a_hand_written_spec_missing_its_devices_or_edits_gets_the_lines_to_write(tmp_path, spec, fix):
    root = lab_root(tmp_path)  # no GPU in the lab: "regenerate it with nvidia-ctk" is no fix there
    (root / SPEC).write_text(spec)
    p = verdict(check(root), 6, "cdi.schema")
    assert p.fix.en.startswith(fix) and "deviceNodes:" in p.fix.ko and "nvidia-ctk" not in p.fix.en


def test_a_newer_cdi_version_is_a_warning_and_the_step_still_judges_cdi_keys(tmp_path):
    from grading_helpers import run_all
    root = lab_root(tmp_path)
    edit(root, SPEC, 'cdiVersion: "0.5.0"', 'cdiVersion: "1.0.0"')  # copied from the newest CDI docs
    results = check(root)
    assert not failed_steps(results)
    p = verdict(results, 6, "cdi.version_newer")
    assert p.severity == "warning" and p.line == 3 and p.fix.en.endswith('cdiVersion: "0.5.0"')
    (root / TOOLKIT / "cdi-keys.txt").write_text("cdiVersion\n")
    assert {q.code for q in check(root)[6].problems} == {"cdi.version_newer", "file.missing_lines"}
    assert not [n for n, r in run_all(root).items() if r.failed]  # apply is not refused by a warning


# --- what step 6's plan says it does (in process, for `make mutate`) ------------------------------------------

def _cdi_plan(root, **params):
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run

    rb = Run(validate(root=str(root), mode="apply", **params)).start()
    try:
        return rb.preflight()["cdi"]
    finally:
        rb.finish()


def test_a_missing_spec_is_planned_as_the_minimal_one_in_a_folder_made_for_it(tmp_path):
    import yaml

    root = lab_root(tmp_path)
    (root / SPEC).unlink()
    (root / SPEC).parent.rmdir()
    plan = _cdi_plan(root)
    spec = f"/{SPEC}"
    assert (plan.message.en, plan.message.ko) == (f"write a minimal CDI spec: {spec}", f"최소 CDI 스펙을 씁니다: {spec}")
    assert plan.dirs == ["/etc/cdi"]
    written, keys = plan.writes
    assert (written.lab_path, written.mode) == (spec, 0o644)
    assert yaml.safe_load(written.new)["kind"] == "nvidia.com/gpu"
    assert (keys.lab_path, keys.new) == (f"/{TOOLKIT}/cdi-keys.txt", b"cdiVersion\nkind\ndevices\ncontainerEdits\n")
    assert plan.refusals == [] and plan.notes == []
    assert plan.subject == spec  # what the step is about, shown beside its plan


def test_a_spec_there_is_left_byte_for_byte_and_only_its_keys_are_written(tmp_path):
    root = lab_root(tmp_path)
    edit(root, SPEC, 'cdiVersion: "0.5.0"', 'cdiVersion: "1.0.0"')  # a warning: noted, not refused
    plan = _cdi_plan(root)
    assert plan.message.en == f"the CDI spec already exists and is left byte for byte alone: /{SPEC}"
    assert [w.lab_path for w in plan.writes] == [f"/{TOOLKIT}/cdi-keys.txt"]
    assert plan.dirs == [] and plan.refusals == []
    assert len(plan.notes) == 1 and "1.0.0" in plan.notes[0].en
    assert plan.subject == f"/{SPEC}"


def test_a_broken_spec_there_refuses_the_run_and_is_not_guessed_at(tmp_path):
    root = lab_root(tmp_path)
    edit(root, SPEC, "kind:", "knd:")
    plan = _cdi_plan(root)
    assert plan.refusals and plan.message == plan.refusals[0].what
    assert plan.notes[-1].en == "the existing spec is not guessed at: it is left as it is."
    assert plan.writes == [] and plan.subject == f"/{SPEC}"


def test_cdi_keys_made_by_hand_after_its_plan_failed_are_judged_by_the_specs_keys(tmp_path):
    """`mkdir cdi-keys.txt` by mistake, then the file written by hand and the check cell run again: judged
    against the spec's top-level keys, in any order."""
    from grading_helpers import a_folder_in_its_place, check_cell_run_twice, written_by_hand

    root = lab_root(tmp_path)
    path = root / TOOLKIT / "cdi-keys.txt"
    first, again = check_cell_run_twice(root, "cdi", written_by_hand(a_folder_in_its_place(path),
                                                                    "kind\ncdiVersion\ndevices\n"))
    assert first == ["write.failed.folder_stands_where_file"]
    (p,) = again.problems  # the spec's four keys in any order: the one left out is named
    assert (p.code, p.line) == ("file.missing_lines", 4)
    assert "line 4 (missing) → containerEdits" in p.what.en
    _, again = check_cell_run_twice(root, "cdi", written_by_hand(a_folder_in_its_place(path),
                                                                "containerEdits\nkind\ncdiVersion\ndevices\n"))
    assert again.problems == [], again.text()


def test_a_missing_spec_is_named_by_its_path(tmp_path):
    root = lab_root(tmp_path)
    (root / SPEC).unlink()
    (p,) = check(root)[6].problems
    assert (p.code, p.path) == ("cdi.spec_missing", f"/{SPEC}")
    assert f"/{SPEC}" in p.what.en and f"/{SPEC}" in p.what.ko


def test_cdi_keys_are_judged_against_the_plan_until_the_plan_is_made_again(tmp_path):
    """The toolkit files are judged against what the run's plan says they hold. The spec edited by hand after
    the plan (its containerEdits taken out): the check cell run again still judges cdi-keys.txt against the
    plan's keys; the plan made again (the notebook's first cells) judges it against the spec as it is now."""
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run

    root = lab_root(tmp_path)
    spec = root / SPEC
    rb = Run(validate(root=str(root), mode="check")).start()
    try:
        rb.preflight()
        step = rb.step("cdi")
        rb.commit(step)
        assert rb.verdict(step).problems == []
        text = spec.read_text()
        at = text.rindex("\ncontainerEdits:") + 1
        spec.write_text(text[:at])  # the top-level containerEdits (the last key) taken out
        again = rb.verdict(step)
    finally:
        rb.finish()
    assert again.problems == [], again.text()
    (p,) = check(root)[6].problems  # the spec's keys now: the file's containerEdits line is one too many
    assert (p.code, p.line) == ("file.extra_lines", 4)
    assert "line 4 containerEdits → (delete)" in p.what.en and p.fix.en == "delete line 4"
