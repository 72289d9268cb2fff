"""The rules of step 1 (runbook_lib/steps/prepare.py): a missing folder or config that a neighbour nearly names
is found and named with the `mv` that fixes it, a name only somewhat alike is not taken for a typo, and a missing
config is copied from the lab's base config under the root when it is there, else from the package's copy.
In process, so `make mutate` sees them (tests/containerd/test_student_config.py has the students' own typos)."""

from __future__ import annotations

from importlib import resources

import os

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
    # the mv as a person pastes it: both paths under the root (issue 51: without it, it moved the host's folders)
    at = os.path.realpath(root)
    assert problems[0].path == toolkit_dir and problems[0].fix.en == f"mv {at}/{typed} {at}{toolkit_dir}"


@pytest.mark.parametrize("neighbour", ["toolkit-old", "tools"])
def test_a_folder_only_somewhat_alike_is_not_taken_for_a_typo(tmp_path, neighbour):
    """/root/toolkit-old beside a missing /root/toolkit is another folder, not the toolkit misspelt."""
    root = lab_root(tmp_path)
    (root / TOOLKIT).rename(root / "root" / neighbour)
    problems = check(root)[1].problems
    assert [p.code for p in problems] == ["prepare.folder_missing"], [p.what.en for p in problems]
    assert problems[0].path == "/" + TOOLKIT
    assert f"/{TOOLKIT}" in problems[0].what.en and f"/{TOOLKIT}" in problems[0].what.ko  # the folder, by name
    at = os.path.realpath(root)  # the mkdir as pasted: under the root (issue 51)
    assert (problems[0].fix.en, problems[0].fix.ko) == (f"mkdir -p {at}/{TOOLKIT}", f"mkdir -p {at}/{TOOLKIT}")


def test_a_misnamed_folders_words_name_both_the_path_looked_at_and_the_one_there(tmp_path):
    root = lab_root(tmp_path)
    (root / TOOLKIT).rename(root / "root/tookit")
    [p] = check(root)[1].problems
    assert p.what.en == ("/root/toolkit is missing, and /root/tookit, with a name like it, is there; the lab and the "
                         "runbook look at /root/toolkit exactly.")
    assert p.what.ko == ("이 경로에 아무것도 없습니다: /root/toolkit. 이름이 비슷한 것은 있습니다: /root/tookit. "
                         "실습과 런북은 정확히 앞의 경로를 봅니다.")


def test_a_config_linked_to_nothing_under_the_root_is_said_as_the_link_and_one_to_an_empty_file_as_empty(tmp_path):
    """config.toml -> /etc/shadow: followed inside the root, where nothing is, so said as the dangling link; a
    link to an empty file under the root is a config that is there and empty."""
    from grading_helpers import CONFIG

    root = lab_root(tmp_path)
    (root / CONFIG).unlink()
    (root / CONFIG).symlink_to("/etc/shadow")
    [p] = check(root)[1].problems
    assert (p.code, p.path) == ("prepare.config_link_dangling", "/" + CONFIG)
    assert p.what.en.startswith(f"/{CONFIG} is a symbolic link (/{CONFIG} -> /etc/shadow) to a file that is not "
                                "under the root: /etc/shadow.")
    (root / CONFIG).unlink()
    (root / "etc/containerd/empty.toml").write_bytes(b"")
    (root / CONFIG).symlink_to("empty.toml")
    assert [p.code for p in check(root)[1].problems] == ["prepare.config_empty"]


def test_an_empty_config_beside_a_nearly_named_one_is_empty_not_misnamed(tmp_path):
    """config.toml is there but empty, and config.tml beside it: the config exists under its right name, so
    step 1 says it is empty (the base is copied into it), not that it is misnamed."""
    from grading_helpers import CONFIG

    root = lab_root(tmp_path)
    (root / CONFIG).with_name("config.tml").write_bytes((root / CONFIG).read_bytes())
    (root / CONFIG).write_bytes(b"\n")
    problems = check(root)[1].problems
    assert [p.code for p in problems] == ["prepare.config_empty"], [p.what.en for p in problems]


@pytest.mark.parametrize("state,code,ko,en", [
    ("missing", "prepare.config_missing", "containerd 설정 파일이 없습니다: {config}", "{config} is missing."),
    ("empty", "prepare.config_empty", "containerd 설정 파일이 비어 있습니다: {config}", "{config} is empty."),
])
def test_a_config_missing_or_empty_is_said_at_the_config_with_the_copy_of_the_base_as_the_fix(tmp_path, state, code,
                                                                                            ko, en):
    """Step 1's check of a student's root: the config is said by its lab path, and the fix is the `cp` of the
    parameters' base onto it (both named as the run was given them)."""
    from grading_helpers import CONFIG

    root = lab_root(tmp_path)
    config, base = "/etc/containerd/config.toml", "/srv/course/base.toml"
    assert "/" + CONFIG == config
    if state == "missing":
        (root / CONFIG).unlink()
    else:
        (root / CONFIG).write_bytes(b"")
    [problem] = check(root, base_config=base)[1].problems
    assert (problem.code, problem.path, problem.line) == (code, config, None)
    assert (problem.what.ko, problem.what.en) == (ko.format(config=config), en.format(config=config))
    at = os.path.realpath(root)  # the cp as pasted: under the root, never the host's /etc/containerd (issue 51)
    assert (problem.fix.ko, problem.fix.en) == (f"cp {at}{base} {at}{config}", f"cp {at}{base} {at}{config}")
    # the finding's values, as the grading's records keep them
    assert {k: problem.values[k] for k in ("config", "base")} == {"config": config, "base": base}


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


# --- what step 1's plan says it does -------------------------------------------------------------------------

def _step1_plan(root, **params):
    rb = Run(validate(root=str(root), **params)).start()
    try:
        return rb.preflight()["prepare"], rb
    finally:
        rb.finish()


def test_an_empty_root_gets_its_folders_once_each_and_the_base_copied(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    plan, _ = _step1_plan(root)
    assert plan.dirs == ["/etc", "/etc/containerd", "/root", "/root/toolkit"]
    assert [n.en for n in plan.notes] == ["folders to create: /etc, /etc/containerd, /root, /root/toolkit"]
    assert plan.notes[0].ko == "만들 폴더: /etc, /etc/containerd, /root, /root/toolkit"
    config = DEFAULTS["config_path"]
    assert plan.message.en == f"copy runbook_lib/data/config.toml.base to {config}."
    assert plan.message.ko == f"runbook_lib/data/config.toml.base 를 {config} 로 복사합니다."
    (write,) = plan.writes
    assert (write.lab_path, write.mode) == (config, 0o644)
    assert plan.subject == config  # what the step is about, shown beside its plan


@pytest.mark.parametrize("config, copied", [(b"\n  \n", True), (b"version = 2\n", False)])
def test_a_config_of_blanks_is_replaced_by_the_base_and_any_other_is_kept(tmp_path, config, copied):
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / TOOLKIT).mkdir(parents=True)
    (root / DEFAULTS["config_path"].lstrip("/")).write_bytes(config)
    plan, _ = _step1_plan(root)
    assert (plan.dirs, plan.notes) == ([], [])
    assert bool(plan.writes) is copied
    assert plan.subject == DEFAULTS["config_path"]
    if not copied:
        path = DEFAULTS["config_path"]
        assert plan.message.en == (f"{path} already exists and is kept (a node's real config is never replaced by "
                                   "the lab's base).")


def test_on_a_distribution_only_the_toolkit_folder_is_made_and_its_config_is_read_as_it_is(tmp_path):
    from distro_helpers import write_root
    from distro_helpers import CASES

    files, _, generated = CASES["k3s-template"]
    root = write_root(tmp_path, files)
    plan, rb = _step1_plan(root)
    assert plan.dirs == ["/root", "/root/toolkit"] and plan.writes == []
    assert plan.message.en == f"k3s's own generated config is read as it is: /{generated}"
    assert plan.message.ko == f"k3s 가 만드는 설정을 그대로 읽습니다: /{generated}"
    assert plan.subject == f"/{generated}"


def test_a_node_gets_no_toolkit_folder_of_the_lab(tmp_path):
    """Step 1 on a node plans only the config's folder: the lab's /root/toolkit is the lab's answer folder,
    nothing of which is left on a node."""
    from helpers import TEST_DATA, finished_run, node_root

    root = node_root(tmp_path / "node", TEST_DATA / "containerd" / "containerd-1.6.20-default.toml")
    rb = finished_run(root, profile="node")
    assert rb.results["prepare"].failed is False, rb.results["prepare"].text()
    assert not (root / "root").exists()
