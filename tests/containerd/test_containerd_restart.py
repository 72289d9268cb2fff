"""Restarting containerd: the decision, and the real commands run against a harmless `systemctl` (and `ctr`)
placed first on PATH in a temporary folder — real programs that only log their arguments, so the host's
services are never touched."""

import pytest

from helpers import fake_bin
from layouts import fixture, make_root, run_steps
from runbook_lib.containerd import restart
from runbook_lib.engine.result import CHANGED, SKIPPED


@pytest.fixture
def fake_path(tmp_path, monkeypatch):
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))  # only the fakes: no real systemctl or ctr can be reached

    def calls():
        log = folder / "calls.log"
        return log.read_text().splitlines() if log.exists() else []
    return folder, calls


@pytest.mark.parametrize("real_node,writes,changed,asked,action", [
    (False, True, True, True, "lab"),
    (True, False, True, True, "check"),
    (True, True, False, True, "not-needed"),
    (True, True, True, False, "needed"),
    (True, True, True, True, "restart"),
])
def test_the_decision(real_node, writes, changed, asked, action):
    d = restart.decide(real_node=real_node, writes=writes, config_changed=changed, asked=asked)
    assert d.action == action
    assert d.message.ko and d.message.en
    if action == "needed":
        assert "systemctl restart containerd" in d.message.en and "restart_containerd" in d.message.ko


def test_restart_then_confirm_runs_the_real_commands(fake_path):
    folder, calls = fake_path
    fake_bin(folder, "systemctl", 'if [ "$1" = is-active ]; then echo active; fi\n')
    fake_bin(folder, "ctr", "echo 'Server: Version: 1.6.20'\n")
    assert restart.restart_and_confirm(delay=0) == []
    assert calls() == ["systemctl restart containerd", "systemctl is-active containerd", "ctr version"]


def test_containerd_that_does_not_come_back_is_a_failure(fake_path):
    folder, calls = fake_path
    fake_bin(folder, "systemctl", 'if [ "$1" = is-active ]; then echo failed; exit 3; fi\n')
    problems = restart.restart_and_confirm(attempts=2, delay=0)
    assert problems and "failed" in problems[0].what.en and "journalctl" in problems[0].fix.ko
    assert calls().count("systemctl is-active containerd") == 2


def test_a_failed_restart_command_says_what_systemctl_said(fake_path):
    folder, _ = fake_path
    fake_bin(folder, "systemctl", 'echo "Unit containerd.service not found." >&2; exit 5\n')
    problems = restart.restart_and_confirm(delay=0)
    assert "exit code 5" in problems[0].what.en and "containerd.service not found" in problems[0].what.ko


def test_without_systemctl_the_restart_fails_clearly(fake_path):
    problems = restart.restart_and_confirm(delay=0)
    assert "127" in problems[0].what.en


def test_a_lab_root_never_restarts_even_when_asked(tmp_path, fake_path):
    folder, calls = fake_path
    fake_bin(folder, "systemctl", "exit 0\n")
    root = make_root(tmp_path, fixture("containerd-1.6.20-default.toml"))
    rb = run_steps(root, steps=[1, 2, "restart"], restart_containerd=True)
    assert rb.results["runtime"].status == CHANGED
    result = rb.results["restart"]
    assert result.status == SKIPPED and "outside a lab root" in result.message.en
    assert "실습 루트" in result.message.ko
    assert calls() == []

