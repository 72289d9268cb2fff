"""The rules of step 1 (runbook_lib/steps/prepare.py): a missing folder or config that a neighbour nearly names
is found and named with the `mv` that fixes it, a name only somewhat alike is not taken for a typo, and a missing
config is copied from the lab's base config under the root when it is there, else from the package's copy.
In process, so `make mutate` sees them (tests/test_student_config.py has the students' own typos)."""

from __future__ import annotations

from importlib import resources

import pytest

from grading_helpers import TOOLKIT, check, lab_root
from runbook_lib.engine.params import DEFAULTS, validate
from runbook_lib.engine.run import Run


@pytest.mark.parametrize("toolkit_dir, typed", [
    ("/root/toolkit/", "root/tookit"),  # the parameter written with a slash at its end
    ("/root/labX", "root/lbX"),         # a short name: its last letter counts as much as any other
])
def test_a_missing_folder_a_neighbour_nearly_names_is_found_with_the_mv(tmp_path, toolkit_dir, typed):
    root = lab_root(tmp_path)
    (root / TOOLKIT).rename(root / typed)
    problems = check(root, toolkit_dir=toolkit_dir)[1].problems
    assert [p.code for p in problems] == ["prepare.misnamed"], [p.what.en for p in problems]
    assert problems[0].path == toolkit_dir and problems[0].fix.en == f"mv /{typed} {toolkit_dir}"


@pytest.mark.parametrize("neighbour", ["toolkit-old", "tools"])
def test_a_folder_only_somewhat_alike_is_not_taken_for_a_typo(tmp_path, neighbour):
    """/root/toolkit-old beside a missing /root/toolkit is another folder, not the toolkit misspelt."""
    root = lab_root(tmp_path)
    (root / TOOLKIT).rename(root / "root" / neighbour)
    problems = check(root)[1].problems
    assert [p.code for p in problems] == ["prepare.folder_missing"], [p.what.en for p in problems]
    assert problems[0].path == "/" + TOOLKIT
    assert f"/{TOOLKIT}" in problems[0].what.en and f"/{TOOLKIT}" in problems[0].what.ko  # the folder, by name


def test_an_empty_config_beside_a_nearly_named_one_is_empty_not_misnamed(tmp_path):
    """config.toml is there but empty, and config.tml beside it: the config exists under its right name, so
    step 1 says it is empty (the base is copied into it), not that it is misnamed."""
    from grading_helpers import CONFIG

    root = lab_root(tmp_path)
    (root / CONFIG).with_name("config.tml").write_bytes((root / CONFIG).read_bytes())
    (root / CONFIG).write_bytes(b"\n")
    problems = check(root)[1].problems
    assert [p.code for p in problems] == ["prepare.config_empty"], [p.what.en for p in problems]


def _planned_copy(root):
    rb = Run(validate(root=str(root))).start()
    try:
        plan = rb.preflight()["prepare"]
    finally:
        rb.finish()
    assert [w.lab_path for w in plan.writes] == [DEFAULTS["config_path"]]
    return plan.writes[0].new, plan.message.en


def test_a_missing_config_is_copied_from_the_labs_base_under_the_root_when_it_is_there(tmp_path):
    packaged = (resources.files("runbook_lib") / "data" / "config.toml.base").read_bytes()
    root = tmp_path / "root"
    root.mkdir()
    new, said = _planned_copy(root)  # no lab fixture under the root: the package's copy
    assert new == packaged and "runbook_lib/data/config.toml.base" in said
    base = root / DEFAULTS["base_config"].lstrip("/")
    base.parent.mkdir(parents=True)
    base.write_bytes(packaged + b"# the lab's own base config\n")
    new, said = _planned_copy(root)
    assert new == base.read_bytes() and DEFAULTS["base_config"] in said
