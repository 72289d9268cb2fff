"""Restarting containerd so that it reads the new config: on a real node only, and only when asked.

containerd reads its config once, at start; until it restarts, the runtime written by step 2 does not exist
for Kubernetes. A restart is still an operator's decision (running containers keep running under their shims,
but the CRI API is away for a moment), so the runbook says when it is needed and does it only with
`restart_containerd`. In a lab root there is no containerd to restart: the root is a folder, not a node.
The commands go through ``run`` so that a test can put a harmless `systemctl` first on PATH.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass

from runbook_lib.findings.messages import Msg
from runbook_lib.findings.problem import Problem
from runbook_lib.fs.lifeline import child_preexec
from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import bilingual

SERVICE = "containerd"
STEP = "restart"
RESTART = ["systemctl", "restart", SERVICE]
IS_ACTIVE = ["systemctl", "is-active", SERVICE]

Runner = Callable[[list[str]], subprocess.CompletedProcess]


def run_command(argv: list[str]) -> subprocess.CompletedProcess:
    """Run a program found on the current PATH; a missing program is exit code 127, as in a shell."""
    found = shutil.which(argv[0], path=os.environ.get("PATH"))
    if found is None:
        return subprocess.CompletedProcess(argv, 127, "", f"{argv[0]}: command not found")
    return subprocess.run([found, *argv[1:]], capture_output=True, text=True, timeout=120, preexec_fn=child_preexec)


@dataclass(frozen=True)
class Decision:
    action: str    # "lab" | "check" | "not-needed" | "needed" | "restart"
    message: Msg


def decide(*, real_node: bool, writes: bool, config_changed: bool, asked: bool, node: bool = False,
           root: str = "/") -> Decision:
    """``real_node``: the root is this machine's /; ``node``: the node profile, whose root may be the node's /
    mounted elsewhere (a DaemonSet's /host), where a changed config still waits for a restart of its containerd;
    ``writes``: the run's mode writes its plans (check mode writes nothing, so restarts nothing)."""
    if not real_node and not node:
        return Decision("lab", say("containerd.restart.containerd_not_restarted_lab"))
    if not writes:
        return Decision("check", say("containerd.restart.check_mode_changes_nothing"))
    if not config_changed:
        return Decision("not-needed", say("containerd.restart.config_unchanged"))
    if not real_node:  # not this machine's containerd: the node restarts it
        return Decision("needed", say("containerd.restart.needed_on_the_node", root=root))
    if not asked:
        return Decision("needed", say("containerd.restart.containerd_config_changed_containerd"))
    return Decision("restart", say("containerd.restart.config_changed_restart_asked"))


def restart_and_confirm(run: Runner = run_command, *, attempts: int = 15, delay: float = 1.0,
                        command: tuple[str, ...] = tuple(RESTART)) -> list[Problem]:
    """`systemctl restart containerd` (or the distribution's own command: k3s, RKE2 and microk8s restart
    their service, which starts containerd), then wait until systemd reports the service active and, when
    `ctr` is there, until containerd answers on its API. Returns the problems (none when it is back)."""
    service = command[2] if command[:2] in (("systemctl", "restart"), ("snap", "restart")) else SERVICE
    done = run(list(command))
    if done.returncode != 0:
        return [Problem.of("restart.failed", exit_code=done.returncode, said=_said(done), service=service)]
    state = ""
    for i in range(attempts):
        probe = run(["systemctl", "is-active", service if command[0] == "systemctl" else f"snap.{service}"])
        state = probe.stdout.strip()
        if probe.returncode == 0 and state == "active":
            break
        time.sleep(delay)
    else:
        return [_not_back(f"systemctl is-active {service}: {state or _said(probe)}")]
    if shutil.which("ctr", path=os.environ.get("PATH")) is None:
        return []
    for i in range(attempts):
        answer = run(["ctr", "version"])
        if answer.returncode == 0:
            return []
        time.sleep(delay)
    return [_not_back(f"ctr version: {_said(answer)}")]


BACK = say("containerd.restart.containerd_restarted_confirmed_back")


def _not_back(seen: str) -> Problem:
    return Problem.of("restart.not_back", seen=seen)


def _said(done: subprocess.CompletedProcess) -> str:
    text = (done.stderr or done.stdout or "").strip().splitlines()
    return text[-1] if text else f"({bilingual(say('word.no_output'))})"
