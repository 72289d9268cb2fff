"""The rules of step 2's plan on a distribution's route (runbook_lib/steps/runtime.py, `_route`): for every
layout a distribution has, the plan puts the runtime where that distribution's containerd reads it, says so
naming the runtime, the distribution and the file, keeps what the route planner noted, and on a second run says
the runtime is already there; a config in a version the node's containerd cannot read is refused before any
write. In process (the plan as the notebook's first cell computes it), so `make mutate` sees them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from distro_helpers import write_root
from grading_helpers import lab_root, run_all
from runbook_lib.containerd.distro.plan import plan_route
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run
from distro_helpers import CASES, K3S


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
    sys.path.insert(0, str(Path(__file__).parent / "real"))
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
