"""The mode, chosen once (runbook_lib/engine/mode.py): apply, check and remove are drivers over the one core of
planning and judging; a run asks its driver, never the mode's name (tests/repo/test_architecture.py walks the code
for a mode tested as a flag)."""

from __future__ import annotations

import pytest

from helpers import FIXTURES
from grading_helpers import CONFIG
from runbook_lib.engine import mode as modes
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run
from runbook_lib.findings.catalog import say
from runbook_lib.steps import REMOVE_STEPS, STEPS


def _root(tmp_path):
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_bytes((FIXTURES / "containerd-1.6.20-default.toml").read_bytes())
    return root


@pytest.mark.parametrize("name,driver,steps", [("apply", modes.APPLY, STEPS), ("check", modes.CHECK, STEPS),
                                               ("remove", modes.REMOVE, REMOVE_STEPS)])
def test_the_mode_parameter_chooses_the_runs_driver_and_its_steps(tmp_path, name, driver, steps):
    rb = Run(validate(root=str(_root(tmp_path)), mode=name))
    assert rb.mode is driver
    assert rb.steps == steps
    assert rb.mirror(mode="check").mode is modes.CHECK  # a mirror chooses its own, from its own parameters


def test_only_apply_adds_and_only_check_writes_nothing():
    assert [(m.name, m.writes, m.adds, m.removes) for m in (modes.APPLY, modes.CHECK, modes.REMOVE)] == [
        ("apply", True, True, False), ("check", False, False, False), ("remove", True, False, True)]


def test_check_words_a_change_as_what_apply_would_do_and_a_plan_without_one_as_it_is():
    said = say("runtime.runtime_already_registered", runtime_name="nvidia")
    assert modes.CHECK.said(said, changes=True) == say("run.apply_mode_would", message=said)
    assert modes.CHECK.said(said, changes=False) == said
    assert modes.APPLY.said(said, changes=True) == said
    assert modes.REMOVE.said(said, changes=True) == said
    assert (modes.APPLY.plan_label, modes.CHECK.plan_label) == ("label.plan", "label.apply_would")
    assert (modes.APPLY.plans_label, modes.CHECK.plans_label) == ("label.the_plan", "label.the_plan_check_mode")


def test_a_check_run_of_a_root_apply_would_change_writes_nothing_and_says_what_apply_would(tmp_path):
    root = _root(tmp_path)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    rb = Run(validate(root=str(root), mode="check")).start()
    try:
        rb.preflight()
        result = rb.commit(rb.step("runtime"))
    finally:
        rb.finish()
    assert result.message == say("run.apply_mode_would", message=rb.plans["runtime"].message)
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
