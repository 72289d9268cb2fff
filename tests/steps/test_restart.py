"""The restart step's rules (runbook_lib/steps/restart.py), in process so that mutation testing sees them:
containerd is restarted only when this run wrote a config it reads, in apply mode, on a real node, when asked, with
the command of the distribution that starts it (none where the distribution reloads its drop-in folder itself),
and a restart that fails is the step's failure.

A real node is the machine's own "/": here the run plans and writes on a lab root as always, and only for the
restart step is its target one that says it is the node's "/" (the decision reads nothing else of it). The
commands are real programs first on PATH that only log their arguments (as in test_restart.py), so no service of
this machine is touched."""

from __future__ import annotations

import pytest

from distro_helpers import distro_fixture, write_root
from layouts import fixture, make_root
from helpers import as_node
from helpers import fake_bin
from runbook_lib.containerd import restart as service
from runbook_lib.engine.params import validate
from runbook_lib.engine.result import CHANGED, FAILED, SKIPPED, UNCHANGED
from runbook_lib.steps.base import RESTART_NEEDED
from runbook_lib.steps.status import outcome
from runbook_lib.engine.run import Run

K3S = "var/lib/rancher/k3s/agent/etc/containerd"


@pytest.fixture
def node_bin(tmp_path, monkeypatch):
    """A systemctl that reports the service active and a ctr that answers, alone on PATH: the calls they got."""
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    fake_bin(folder, "systemctl", 'if [ "$1" = is-active ]; then echo active; fi\n')
    fake_bin(folder, "ctr", "echo 'Server: Version: 1.6.20'\n")

    def calls():
        log = folder / "calls.log"
        return log.read_text().splitlines() if log.exists() else []
    return folder, calls


def restart_on_node(root, steps=(1, 2), **params):
    """Plan every step on the lab root, run the given ones, then the restart step as on a node: its result."""
    rb = Run(validate(root=str(root), **params)).start()
    try:
        rb.preflight()
        for step in rb.steps:
            if step.NUMBER in steps:
                assert not rb.run(step).failed
        rb.target = as_node(root)
        return rb.run(rb.step("restart"))
    finally:
        rb.finish()


def _plain(tmp_path):
    return make_root(tmp_path, fixture("containerd-1.6.20-default.toml"))


def test_a_config_written_on_a_node_is_restarted_when_asked_and_confirmed_back(tmp_path, node_bin):
    _, calls = node_bin
    result = restart_on_node(_plain(tmp_path), restart_containerd=True)
    assert calls() == ["systemctl restart containerd", "systemctl is-active containerd", "ctr version"]
    assert result.status == CHANGED and not result.problems
    assert result.message.en == service.BACK.en


def test_a_config_written_on_a_node_but_not_asked_is_restart_needed_and_says_the_command(tmp_path, node_bin):
    """A pending restart is its own status, never passed nor merely skipped (steps/status.py: restart-needed)."""
    _, calls = node_bin
    result = restart_on_node(_plain(tmp_path), restart_containerd=False)
    assert calls() == []
    assert result.status == RESTART_NEEDED
    assert "systemctl restart containerd" in result.message.en
    assert outcome(result.status).said.en == "restart needed" and not outcome(result.status).passes


def test_nothing_written_by_this_run_means_no_restart_even_when_asked(tmp_path, node_bin):
    """The restart cell run before the write cells: the plans would change the config, but this run wrote
    nothing, so containerd already reads what is on disk."""
    _, calls = node_bin
    result = restart_on_node(_plain(tmp_path), steps=(), restart_containerd=True)
    assert calls() == []
    assert result.status == UNCHANGED and result.message.en == service.decide(
        real_node=True, writes=True, config_changed=False, asked=True).message.en


def test_a_restart_that_fails_is_the_steps_failure(tmp_path, node_bin):
    folder, calls = node_bin
    fake_bin(folder, "systemctl", 'echo "Unit containerd.service not found." >&2; exit 5\n')
    result = restart_on_node(_plain(tmp_path), restart_containerd=True)
    assert calls() == ["systemctl restart containerd"]
    assert result.status == FAILED and [p.code for p in result.problems] == ["restart.failed"]
    assert "exit code 5" in result.problems[0].what.en


def test_on_k3s_the_distributions_service_is_restarted(tmp_path, node_bin):
    _, calls = node_bin
    root = write_root(tmp_path, {f"{K3S}/config.toml": distro_fixture("k3s-v3/config.toml"),
                                 f"{K3S}/config-v3.toml.tmpl": distro_fixture("k3s-v3/config-v3.toml.tmpl")})
    result = restart_on_node(root, restart_containerd=True)
    assert calls()[:2] == ["systemctl restart k3s", "systemctl is-active k3s"]
    assert result.status == CHANGED and not result.problems


@pytest.mark.parametrize("asked", [True, False])
def test_k0s_reloads_its_drop_in_folder_itself_so_nothing_is_restarted(tmp_path, node_bin, asked):
    _, calls = node_bin
    root = write_root(tmp_path, {"etc/k0s/containerd.toml": distro_fixture("k0s/containerd.toml"),
                                 "etc/k0s/containerd.d/.keep": ""})
    result = restart_on_node(root, restart_containerd=asked)
    assert (root / "etc/k0s/containerd.d/nvidia.toml").exists()  # the run did write the drop-in
    assert calls() == []
    assert result.status == UNCHANGED and "k0s" in result.message.en and "k0s" in result.message.ko


def test_act_restarts_through_the_runner_it_is_given_and_nothing_else(tmp_path, node_bin):
    """`act(run, result, runner)`: every command of the restart and its confirmation goes through the runner
    given (the commands on PATH are never called)."""
    import subprocess

    from runbook_lib.engine.result import StepResult
    from runbook_lib.steps import restart

    _, calls = node_bin
    got = []

    def runner(argv):
        got.append(" ".join(argv))
        return subprocess.CompletedProcess(argv, 0, "active\n" if argv[1:2] == ["is-active"] else "", "")

    rb = Run(validate(root=str(_plain(tmp_path)), restart_containerd=True)).start()
    try:
        rb.preflight()
        for step in rb.steps:
            if step.NUMBER in (1, 2):
                assert not rb.run(step).failed
        rb.target = as_node(rb.p.root)
        result = StepResult(restart.NUMBER, restart.ID, restart.TITLE, UNCHANGED, rb.plans[restart.ID].message)
        restart.act(rb, result, runner=runner)
    finally:
        rb.finish()
    assert got == ["systemctl restart containerd", "systemctl is-active containerd", "ctr version"]
    assert calls() == []
    assert result.status == CHANGED and result.message.en == service.BACK.en and restart.verdict(rb) == []


@pytest.mark.parametrize("on_node", [True, False], ids=["node-not-asked", "lab-root"])
def test_in_apply_the_step_says_why_it_is_skipped_once_its_commit_skipped_it_and_not_before(
        tmp_path, node_bin, on_node):
    """The step's `skipped` (why it cannot run here) in apply mode: nothing before the restart cell ran (the
    decision needs what this run wrote); once the commit skipped it (a node not asked to restart, or a lab root),
    the very message the step's result says, in both languages."""
    from runbook_lib.steps import restart
    _, calls = node_bin
    rb = Run(validate(root=str(_plain(tmp_path)), restart_containerd=False)).start()
    try:
        rb.preflight()
        for step in rb.steps:
            if step.NUMBER in (1, 2):
                assert not rb.run(step).failed
        if on_node:
            rb.target = as_node(rb.p.root)
        assert restart.STEP.skipped(rb) is None
        result = rb.run(rb.step("restart"))
        reason = restart.STEP.skipped(rb)
    finally:
        rb.finish()
    assert calls() == []
    expected = service.decide(real_node=on_node, writes=True, config_changed=True, asked=False).message
    assert (result.message.en, result.message.ko) == (expected.en, expected.ko)
    if on_node:  # a pending restart is its own status, not a reason to skip
        assert result.status == RESTART_NEEDED
        assert reason is None
    else:
        assert result.status == SKIPPED
        assert (reason.en, reason.ko) == (expected.en, expected.ko)


def test_a_config_remove_takes_away_is_a_config_written_and_restarted_when_asked(tmp_path, node_bin):
    """mode=remove on a root whose config the runbook created: the config goes (kept as a backup), which
    changes what containerd reads as much as a write does, so it is restarted when asked."""
    _, calls = node_bin
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    applied = Run(validate(root=str(root), mode="apply")).start()
    try:
        applied.run_all()
    finally:
        applied.finish()
    assert (root / "etc/containerd/config.toml").is_file()
    result = restart_on_node(root, steps=("remove",), mode="remove", restart_containerd=True)
    assert not (root / "etc/containerd/config.toml").exists()
    assert calls() == ["systemctl restart containerd", "systemctl is-active containerd", "ctr version"]
    assert result.status == CHANGED


@pytest.mark.parametrize("mode, asked, applied_before, action", [
    ("apply", False, False, "needed"),        # the plans change the config: a restart is needed, not asked
    ("apply", True, False, "restart"),
    ("apply", True, True, "not-needed"),      # a second apply plans no change of the config
    ("check", True, False, "check"),          # check mode changes nothing, so restarts nothing
])
def test_the_restart_steps_plan_on_a_node_says_the_decision_of_this_runs_plans(tmp_path, node_bin, mode, asked,
                                                                               applied_before, action):
    """The first cell's plan says, before any write, what the restart step will decide: from whether the plans of
    the steps containerd's config comes from change it, the mode and the parameter."""
    root = _plain(tmp_path)
    if applied_before:
        restart_on_node(root, steps=(1, 2, 4, 5, 6, 7, 8))
    rb = Run(validate(root=str(root), mode=mode, restart_containerd=asked)).start()
    try:
        plans = rb.preflight()
        rb.target = as_node(root)  # the decision asks only this of the target
        plan = rb.step("restart").plan(rb)
    finally:
        rb.finish()
    changed = any(plans[s].changed for s in ("prepare", "runtime"))
    assert changed is (not applied_before)
    expected = service.decide(real_node=True, writes=mode != "check", config_changed=changed, asked=asked)
    assert expected.action == action and plan.message == expected.message


def test_a_node_mounted_elsewhere_gets_its_changed_config_and_the_restart_is_left_to_the_node(tmp_path):
    """The node profile on a node's / mounted away from this machine's (a DaemonSet's /host): the config changed,
    so a restart is needed, and it is said for that node, by its root; in check mode the same root restarts
    nothing, for the check's own reason."""
    from helpers import TEST_DATA, finished_run, node_root

    root = node_root(tmp_path / "node", TEST_DATA / "containerd" / "containerd-1.6.20-default.toml")
    rb = finished_run(root, profile="node")
    result = rb.results["restart"]
    assert result.status == RESTART_NEEDED, result.text()
    at = str(rb.target.root)
    assert result.message.en == (f"the config changed; the node's root ({at}) is not this machine's /, so containerd "
                                 "is not restarted from here: restart it on the node (systemctl restart containerd).")
    assert result.message.ko.startswith(f"설정이 바뀌었습니다. 노드의 root({at})가 이 머신의 / 가 아니라")
    checked = finished_run(root, profile="node", mode="check").results["restart"]
    assert checked.status == SKIPPED
    assert checked.message == service.decide(real_node=False, writes=False, config_changed=False, asked=False,
                                             node=True).message
