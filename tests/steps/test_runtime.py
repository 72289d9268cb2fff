"""Step 2's own rules (runbook_lib/steps/runtime.py), in process for `make mutate`.

- A runtime of the wanted name that another owner wrote (`foreign_problem`): without replace_runtime it is named as
  theirs and never judged as the runbook's mistake; with replace_runtime=True it is the runbook's to replace, so
  check mode says what to change instead of whose it is. Through a check run on a lab root.
- What the plan says it does, for each kind of config it meets (a runtime to add, one already there, a config
  with no runtime at all, a table where containerd does not look, a default that already is the runtime): its
  message and notes in both languages, and the runtimes the planned file holds."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from distro_helpers import write_root, CASES, K3S
from grading_helpers import check, good_with, lab_root, run_all
from helpers import answer_as_host
from runbook_lib.containerd.distro.plan import plan_route
from runbook_lib.containerd.owner import OTHER_BINARY
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run
GPU_OPERATOR = "/usr/local/nvidia/toolkit/nvidia-container-runtime"  # the GPU Operator's toolkit writes this one


def _codes(tmp_path, **params) -> dict[int, list[str]]:
    root = lab_root(tmp_path, good_with('BinaryName = "/usr/bin/nvidia-container-runtime"',
                                        f'BinaryName = "{GPU_OPERATOR}"'))
    results = check(root, profile="node", **params)  # another owner's runtime exists only on a node
    return {n: [p.code for p in results[n].problems] for n in (2, 3)}


def test_another_owners_runtime_is_named_as_theirs_unless_replacing_it_is_asked_for(tmp_path):
    kept = _codes(tmp_path / "kept")
    assert kept == {2: [OTHER_BINARY], 3: ["depends.earlier"]}, kept
    replaced = _codes(tmp_path / "replaced", replace_runtime=True)  # the runbook's now: step 3 says what to change
    assert replaced == {2: [], 3: ["options.binary_name.wrong"]}, replaced


def test_on_a_real_node_replacing_another_owners_runtime_with_a_binary_the_node_lacks_is_refused(
        tmp_path, monkeypatch):
    """On a real node (the target is the machine's own '/'), replace_runtime would turn the owner's working
    runtime into one that fails every GPU pod when the runbook's binary is not installed: step 2 says so. Judged
    here on a sandbox root that answers as '/' does (a test must not write this machine's /etc)."""
    from runbook_lib.containerd.owner import BINARY_MISSING

    answer_as_host(monkeypatch)
    missing = _codes(tmp_path / "missing", replace_runtime=True)
    assert missing[2] == [BINARY_MISSING], missing
    installed = tmp_path / "installed"
    (installed / "root/usr/bin").mkdir(parents=True)
    (installed / "root/usr/bin/nvidia-container-runtime").write_bytes(b"#!/bin/sh\n")
    assert _codes(installed, replace_runtime=True)[2] == []


def test_step_3_points_at_the_owners_binaryname_as_step_2_does(tmp_path):
    """Step 3 does not judge another owner's options; its finding points where step 2's does (the file and
    the BinaryName line) and says step 2's words."""
    root = lab_root(tmp_path, good_with('BinaryName = "/usr/bin/nvidia-container-runtime"',
                                        f'BinaryName = "{GPU_OPERATOR}"'))
    results = check(root, profile="node")
    (theirs,) = results[2].problems
    (said,) = results[3].problems
    lines = [text.strip() for text in (root / "etc/containerd/config.toml").read_text().split("\n")]
    line = lines.index(f'BinaryName = "{GPU_OPERATOR}"') + 1
    assert (theirs.path, theirs.line) == ("/etc/containerd/config.toml", line)
    assert (said.code, said.path, said.line, said.values["step"]) == ("depends.earlier", theirs.path, line, 2)
    assert theirs.what.en in said.what.en and theirs.what.ko in said.what.ko


def test_options_without_any_runtime_table_wait_for_step_2(tmp_path):
    """No nvidia table anywhere (the base config): step 3 has nothing to judge, and says it waits for step 2,
    naming the runtime and the config; scored 0 of its point with "fix step 2 first"."""
    from importlib.resources import files

    base = (files("runbook_lib") / "data" / "config.toml.base").read_bytes()
    results = check(lab_root(tmp_path, base))
    assert results[2].failed and results[3].status == "blocked"
    (waits,) = results[3].problems
    assert waits.code == "depends.runtime_table" and waits.path == "/etc/containerd/config.toml"
    assert waits.what.en == "there is no nvidia runtime table, so its options cannot be checked; fix step 2 first."
    assert waits.what.ko == "nvidia 런타임 테이블이 없어 options 를 확인할 수 없습니다. 2단계를 먼저 고치세요."
    assert waits.fix.en == "follow step 2's fix."


def test_a_misplaced_tables_options_are_judged_where_they_are_and_only_they(tmp_path):
    """The nvidia table misplaced (under the cri plugin, without `.containerd`): step 2's finding. Step 3 judges
    the options where the student wrote them, as they will read once the table is moved (issue 41: it said "no
    nvidia table, cannot check options" and then checked them): a SystemdCgroup = false there is its own."""
    from grading_helpers import broken

    text = broken("misplaced-runtimes-without-containerd.toml").decode()
    assert check(lab_root(tmp_path / "right", text.encode()))[3].status == "passed"
    at = text.index('runtimes.nvidia.options]')
    text = text[:at] + text[at:].replace("SystemdCgroup = true", "SystemdCgroup = false", 1)
    problems = check(lab_root(tmp_path / "wrong", text.encode()))[3].problems
    assert [p.code for p in problems] == ["options.systemd_cgroup.wrong"]


def _planned(tmp_path, config: bytes, **params):
    import tomllib

    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run

    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / "etc/containerd/config.toml").write_bytes(config)
    rb = Run(validate(root=str(root), mode="apply", **params)).start()
    try:
        plan = rb.preflight()["runtime"]
    finally:
        rb.finish()
    if not plan.writes:
        return plan, None, None
    (write,) = plan.writes
    cri = tomllib.loads(write.new.decode())["plugins"]["io.containerd.grpc.v1.cri"]
    return plan, write, cri


HEADER = '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]'


def test_a_runtime_to_add_is_said_with_the_table_it_starts_as_a_copy_of(tmp_path):
    from helpers import FIXTURES

    plan, write, cri = _planned(tmp_path, (FIXTURES / "containerd-1.6.20-default.toml").read_bytes())
    assert write.changed and plan.refusals == []
    assert plan.message.en == f"add the {HEADER} table and its options sub-table."
    assert plan.message.ko == f"{HEADER} 테이블과 options 하위 테이블을 추가합니다."
    assert [n.en for n in plan.notes] == ["the new runtime starts as a copy of the default runtime runc's table."]
    assert sorted(cri["containerd"]["runtimes"]) == ["nvidia", "runc"]


def test_a_runtime_already_there_is_said_so_and_nothing_is_written(tmp_path):
    from grading_helpers import GOOD

    plan, write, _ = _planned(tmp_path, GOOD.read_bytes())
    assert not write.changed
    assert (plan.message.en, plan.notes) == ("the nvidia runtime is already registered.", [])
    assert plan.message.ko == "nvidia 런타임이 이미 등록되어 있습니다."


def test_a_config_without_any_runtime_gets_runc_written_too_and_says_why(tmp_path):
    plan, write, cri = _planned(
        tmp_path, b'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd]\n  default_runtime_name = "runc"\n')
    assert write.changed
    assert plan.message.en == f"add the {HEADER} table and its options sub-table."
    assert [n.en for n in plan.notes] == [
        "the config has no runtimes, so containerd's built-in runc is written too (as soon as any runtime table "
        "exists, the built-in runc is gone)."]
    runtimes = cri["containerd"]["runtimes"]
    assert sorted(runtimes) == ["nvidia", "runc"]
    assert runtimes["runc"]["runtime_type"] == "io.containerd.runc.v2"


def test_a_table_where_containerd_does_not_look_is_moved_and_said_first(tmp_path):
    from grading_helpers import broken

    plan, write, cri = _planned(tmp_path, broken("misplaced-runtimes-without-containerd.toml"))
    moved = (f'[plugins."io.containerd.grpc.v1.cri".runtimes.nvidia] on line 30 is where containerd does not look, '
             f"so the table is deleted and its content written under {HEADER}.")
    assert plan.message.en == moved
    assert "nvidia" in cri["containerd"]["runtimes"] and "runtimes" not in cri


def test_a_default_that_already_is_the_runtime_is_kept_byte_for_byte(tmp_path):
    from grading_helpers import GOOD

    config = GOOD.read_bytes().replace(b'default_runtime_name = "runc"', b'default_runtime_name = "nvidia"')
    plan, write, _ = _planned(tmp_path, config, default_runtime="keep")
    assert (write, plan.refusals) == (None, [])
    assert plan.message.en == ("the node's default runtime already is nvidia (default_runtime is keep); it is the "
                               "default's table, so not a byte of it is changed.")


def test_a_table_where_containerd_does_not_look_is_said_before_the_files_other_findings(tmp_path):
    """Step 2's verdict says the misplaced runtime table first (the student's table, the first thing to fix),
    then the rest of the file's findings that stop the write (here a version-1 plugin name)."""
    from grading_helpers import broken

    text = broken("misplaced-runtimes-without-containerd.toml").decode() + (
        '\n[plugins.cri.registry.mirrors."docker.io"]\n  endpoint = ["https://mirror.local"]\n')
    problems = check(lab_root(tmp_path, text.encode()))[2].problems
    assert [p.code for p in problems] == ["runtime.misplaced", "config.plugin_key_v1_name"]


def test_apply_refuses_another_owners_runtime_in_its_plan_unless_replacing_it_is_asked_for(tmp_path, monkeypatch):
    """What check names as another owner's runtime, apply's plan refuses before any write; with replace_runtime
    the plan replaces its BinaryName, and on a real node only with the runbook's binary installed."""
    from runbook_lib.containerd.owner import BINARY_MISSING

    config = good_with('BinaryName = "/usr/bin/nvidia-container-runtime"', f'BinaryName = "{GPU_OPERATOR}"')
    plan, write, _ = _planned(tmp_path / "kept", config, profile="node")
    assert [p.code for p in plan.refusals] == [OTHER_BINARY] and write is None
    plan, write, cri = _planned(tmp_path / "replaced", config, replace_runtime=True, profile="node")
    assert not plan.refusals, plan.refusals
    assert cri["containerd"]["runtimes"]["nvidia"]["options"]["BinaryName"] == "/usr/bin/nvidia-container-runtime"
    answer_as_host(monkeypatch)  # a sandbox root that answers as '/' does
    plan, write, _ = _planned(tmp_path / "missing", config, replace_runtime=True, profile="node")
    assert [p.code for p in plan.refusals] == [BINARY_MISSING] and write is None


def test_a_config_of_comments_only_gets_its_version_line_first_and_keeps_its_comments(tmp_path):
    """A config with no key at all (only comments) is the node's and kept; the runtime is written for the version
    the tables are written in, said on a line of its own before the comments (without it containerd reads version 1)."""
    import tomllib

    plan, write, cri = _planned(tmp_path, b"# this node's containerd: defaults only\n")
    text = write.new.decode()
    assert text.startswith("version = 2\n\n# this node's containerd: defaults only\n"), text
    assert tomllib.loads(text)["version"] == 2 and sorted(cri["containerd"]["runtimes"]) == ["nvidia", "runc"]


def test_a_config_without_any_runtime_whose_default_is_not_runc_gets_no_default_written_and_step_4_refuses(tmp_path):
    """Only runc is built into containerd: a default of another name with no table is not the runbook's to
    invent. Step 2 writes only its runtime, and step 4 refuses the plan, naming the runtimes there would be."""
    plan, write, cri = _planned(
        tmp_path, b'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd]\n  default_runtime_name = "crun"\n')
    assert sorted(cri["containerd"]["runtimes"]) == ["nvidia"] and not plan.notes
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run
    rb = Run(validate(root=str(tmp_path / "root"), mode="apply")).start()
    try:
        refused = rb.preflight()["default"].refusals
    finally:
        rb.finish()
    assert [(p.code, p.values["runtimes"]) for p in refused] == [("default.not_a_runtime", "nvidia")]


def test_a_runtime_to_add_is_written_in_the_style_of_the_table_it_is_a_copy_of(tmp_path):
    """The new table copies the default runtime's table, and is laid out as that table is (its indentation),
    not as the last table of the file."""
    config = (b'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd]\n  default_runtime_name = "runc"\n'
              b'  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n'
              b'    runtime_type = "io.containerd.runc.v2"\n'
              b'    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\n'
              b'      SystemdCgroup = true\n'
              b'  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.crun]\n'
              b'  runtime_type = "io.containerd.runc.v2"\n'
              b'  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.crun.options]\n'
              b'  BinaryName = "/usr/bin/crun"\n')
    plan, write, _ = _planned(tmp_path, config)
    assert write.new.decode().endswith(
        '  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n'
        '    runtime_type = "io.containerd.runc.v2"\n'
        '    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]\n'
        '      BinaryName = "/usr/bin/nvidia-container-runtime"\n'
        '      SystemdCgroup = true\n'), write.new.decode()


def test_a_variant_spelling_of_an_option_is_noted_at_its_file_and_line(tmp_path):
    """`systemdCgroup` beside SystemdCgroup is not the key containerd reads: step 2's plan, correcting the
    runtime's options, says first where that line is, then the correction."""
    from grading_helpers import GOOD

    good = GOOD.read_text()
    at = good.rindex("SystemdCgroup = true\n")  # nvidia's, the last table of the file
    config = (good[:at] + "systemdCgroup = true\n" + good[at:].replace("true", "false", 1)).encode()
    line = good[:at].count("\n") + 1
    plan, _, _ = _planned(tmp_path, config)
    assert plan.message.en.startswith(f"/etc/containerd/config.toml:{line}: options has a key that differs from "
                                      "containerd's spelling only in case: systemdCgroup"), plan.message.en
    assert [n.en for n in plan.notes] == [f"correct options.SystemdCgroup from false to true (line {line + 1})."]


# -------------------------------------------------------------------------------------------------------------------
# From tests/steps/test_runtime.py (merged here):
# The rules of step 2's plan on a distribution's route (runbook_lib/steps/runtime.py, `_route`): for every
# layout a distribution has, the plan puts the runtime where that distribution's containerd reads it, says so
# naming the runtime, the distribution and the file, keeps what the route planner noted, and on a second run says
# the runtime is already there; a config in a version the node's containerd cannot read is refused before any
# write. In process (the plan as the notebook's first cell computes it), so `make mutate` sees them.


def _params(case: str) -> dict:
    return {"replace_runtime": True} if case == "k3s-dropin" else {}  # k3s's own nvidia runtime is replaced


def _plan_of_step_2(root: Path, **params):
    """Step 2's plan and its run, as the first cell computes them (nothing written)."""
    rb = Run(validate(root=str(root), **params)).start()
    try:
        return rb.preflight()["runtime"], rb
    finally:
        rb.finish()


def _names_runtime_distro_and_file(said: str, runtime: str, distro: str, at: str) -> None:
    assert at in said, said
    rest = said.replace(at, "")  # the runtime's name is said for itself, not only inside the file's name
    assert runtime in rest and distro in rest and "None" not in rest and "{" not in rest, said


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_plan_writes_the_distributions_route_and_says_so(tmp_path, case):
    files, written, _ = CASES[case]
    root = write_root(tmp_path, files)
    plan, rb = _plan_of_step_2(root, **_params(case))
    route = rb.route
    at = "/" + written
    assert route.path == at and not plan.refusals, plan.refusals
    assert plan.subject == at  # what the step is about: the file the distribution reads the runtime from
    assert [w.lab_path for w in plan.writes] == [at] and all(w.changed for w in plan.writes)
    for said in (plan.message.en, plan.message.ko):
        _names_runtime_distro_and_file(said, "nvidia", route.distro, at)
    # every note of the route planner (how this distribution reads the runtime) reaches the plan
    planned = plan_route(rb.target, route, rb.wanted, replace_runtime=rb.p.replace_runtime)
    assert planned.notes and [n.en for n in plan.notes if n in planned.notes] == [n.en for n in planned.notes]
    # the folders the write needs are planned, the ones already there are not
    folder = Path(written).parent
    assert plan.dirs == ([] if (root / folder).is_dir() else ["/" + str(folder)])


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_second_plan_on_the_route_says_the_runtime_is_already_there(tmp_path, case):
    files, written, _ = CASES[case]
    root = write_root(tmp_path, files)
    applied = run_all(root, **_params(case))
    assert not any(r.failed for r in applied.values()), [r.text() for r in applied.values() if r.failed]
    plan, rb = _plan_of_step_2(root, **_params(case))
    route = rb.route
    at = "/" + written
    assert not plan.changed and not plan.dirs and plan.subject == at
    for said in (plan.message.en, plan.message.ko):
        _names_runtime_distro_and_file(said, "nvidia", route.distro, at)
    assert plan.notes  # how the distribution reads the runtime is said on every run


def test_a_route_in_a_version_the_nodes_containerd_cannot_read_is_refused_before_any_write(tmp_path):
    """A version-3 k3s template under containerd 1.6 (which reads versions 1 and 2): containerd would drop the
    CRI tables without an error, so the runtime written there would never be read."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "real"))
    from realenv import need_program
    binary = need_program("containerd")
    files, written, _ = CASES["k3s-template"]
    root = write_root(tmp_path, files)
    plan, rb = _plan_of_step_2(root, containerd_bin=binary)
    route = rb.route
    assert route.distro == "k3s" and f"{K3S}/config.toml" in route.generated
    assert [p.code for p in plan.refusals] == ["config.version_newer_than_containerd"], plan.refusals
    assert plan.message == plan.refusals[0].what and not plan.writes
    assert not (root / written).exists()


def test_a_root_whose_distribution_cannot_be_told_is_refused_by_step_2_in_the_refusals_own_words(tmp_path):
    """Two distributions found and none named: step 2's plan is the route's refusal, said as the refusal says it."""
    root = lab_root(tmp_path)
    (root / "etc/rancher/k3s").mkdir(parents=True)
    (root / "etc/rancher/rke2").mkdir(parents=True)
    plan, rb = _plan_of_step_2(root)
    assert rb.route is None and rb.route_refusal.code == "distro.ambiguous"
    assert plan.refusals == [rb.route_refusal] and not plan.writes
    assert plan.message == rb.route_refusal.what


@pytest.mark.parametrize("case, params, layout, route", [
    ("plain", {"layout": "dropin"}, "dropin", "containerd"),
    ("k3s-template", {}, "inplace", "k3s"),
])
def test_the_variants_are_refused_where_config_toml_is_not_edited_in_place_naming_the_layout_and_the_route(
        tmp_path, case, params, layout, route):
    """nvidia-cdi and nvidia-legacy are written only by an in-place edit: a drop-in or a distribution's route
    is refused at the config, naming the layout asked for and the route found."""
    root = lab_root(tmp_path) if case == "plain" else write_root(tmp_path, CASES[case][0])
    plan, rb = _plan_of_step_2(root, variants=True, **params)
    assert [p.code for p in plan.refusals] == ["variants.inplace_only"]
    problem = plan.refusals[0]
    assert problem.path == rb.p.config_path and plan.message == problem.what
    assert problem.values["layout"] == layout and problem.values["route"] == route
    assert f"(now: layout {layout}, route {route})" in problem.what.en
    assert f"(지금: layout {layout}, 경로 {route})" in problem.what.ko


def test_a_file_another_tool_generates_is_said_first_among_the_reasons_step_2_refuses(tmp_path):
    """A config that says DO NOT EDIT at its top (another tool rewrites it) is refused before any other finding of
    the file: an edit there would be lost, so where to make it is the first thing to fix."""
    config = ('# Generated by the node\'s distribution - DO NOT EDIT\nversion = 2\n'
              'disabled_plugins = ["io.containerd.grpc.v1.cri"]\n')
    root = lab_root(tmp_path, config.encode())
    plan, _ = _plan_of_step_2(root, distro="containerd")
    assert [p.code for p in plan.refusals] == ["distro.marked_do_not_edit", "containerd.cri_disabled"], plan.refusals
    assert plan.message == plan.refusals[0].what and not plan.writes


TYPO = 'BinaryName = "/usr/bin/nvidia-contianer-runtime"'


@pytest.mark.parametrize("mode", ["check", "apply"])
def test_a_students_binaryname_typo_is_step_3s_finding_in_a_lab(tmp_path, mode):
    """A lab student's typo in BinaryName is the student's mistake: step 3 (which owns BinaryName) names it with
    the line to write, step 2 passes and says nothing of it; no word of another owner's runtime or of
    replace_runtime (issue 39)."""
    root = lab_root(tmp_path, good_with('BinaryName = "/usr/bin/nvidia-container-runtime"', TYPO))
    results = check(root) if mode == "check" else run_all(root, mode="apply")
    assert results[2].status == ("passed" if mode == "check" else "changed"), results[2].text()
    said = [results[2].message.en] + [n.en for n in results[2].notes]
    assert not any("another" in s for s in said), said
    assert not any("replace_runtime" in s for s in said), said
    if mode == "check":
        assert not any("BinaryName" in s for s in said), said  # step 3's to say
        (p,) = results[3].problems
        assert p.code == "options.binary_name.wrong"
        assert p.fix.en == 'BinaryName = "/usr/bin/nvidia-container-runtime"'
    else:  # apply repairs it, as it repairs every option of the lab
        assert 'BinaryName = "/usr/bin/nvidia-container-runtime"' in (root / "etc/containerd/config.toml").read_text()
        assert results[3].problems == []


def test_the_same_binaryname_on_a_node_is_another_owners_runtime(tmp_path):
    """On a node, a runtime of that name running another binary is someone's (a tool's or a person's): step 2
    says so, and no fix overwrites it unless replace_runtime is given."""
    root = lab_root(tmp_path, good_with('BinaryName = "/usr/bin/nvidia-container-runtime"', TYPO))
    results = check(root, profile="node")
    assert [p.code for p in results[2].problems] == [OTHER_BINARY]
    assert [p.code for p in results[3].problems] == ["depends.earlier"]


def test_runtime_type_written_under_the_options_header_is_named_there_with_its_move(tmp_path):
    """runtime_type below [...nvidia.options]: containerd reads it as one of runc's options (its config dump keeps it
    there) and the runtime's own is empty. Step 2 names the line where it is and says to move it up, not merely that
    it is missing; step 3 is not charged for it."""
    root = lab_root(tmp_path)
    path = root / "etc/containerd/config.toml"
    text = path.read_text()
    header = '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]'
    start = text.index(header)
    kind = 'runtime_type = "io.containerd.runc.v2"'
    at = text.index(kind, start)
    options = '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]'
    text = text[:at] + text[at + len(kind):]
    text = text.replace(options, options + "\n" + kind, 1)
    path.write_text(text)
    results = check(root)
    found = [p for p in results[2].problems if p.is_error]
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row.strip() == options) + 1  # the line below it
    assert [(p.code, p.line) for p in found] == [("runtime.type_under_options", line)]
    assert 'runtime_type = "io.containerd.runc.v2"' in found[0].fix.en and header in found[0].fix.en
    assert results[3].status == "passed"
