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

SERVICE = "containerd"
STEP = "restart"
TITLE = Msg("containerd 재시작", "Restart containerd")
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


def decide(*, real_node: bool, check_only: bool, config_changed: bool, asked: bool) -> Decision:
    if not real_node:
        return Decision("lab", Msg(
            "실습 루트에서는 containerd 를 재시작하지 않습니다. 재시작은 실습 루트 밖(실제 노드, root 가 /)의 일입니다.",
            "containerd is not restarted in a lab root: restarting is outside a lab root (a real node, root /)."))
    if check_only:
        return Decision("check", Msg("check 모드는 아무것도 바꾸지 않으므로 재시작하지 않습니다.",
                                     "check mode changes nothing, so containerd is not restarted."))
    if not config_changed:
        return Decision("not-needed", Msg(
            "이번 실행에서 containerd 설정이 바뀌지 않아 재시작이 필요 없습니다 (이전 실행이 바꾸고 재시작하지 않았다면 "
            "systemctl restart containerd 를 직접 실행하세요).",
            "the containerd config did not change in this run, so no restart is needed (if an earlier run changed it "
            "without restarting, run systemctl restart containerd yourself)."))
    if not asked:
        return Decision("needed", Msg(
            "containerd 설정이 바뀌었습니다. containerd 는 시작할 때만 설정을 읽으므로 재시작해야 새 런타임이 보입니다. "
            "직접 systemctl restart containerd 를 실행하거나 -p restart_containerd True 로 다시 실행하세요.",
            "the containerd config changed; containerd reads it only at start, so the new runtime is visible only after "
            "a restart. Run systemctl restart containerd yourself, or run again with -p restart_containerd True."))
    return Decision("restart", Msg("설정이 바뀌었고 재시작을 요청받아 containerd 를 재시작합니다.",
                                   "the config changed and a restart was asked for: restarting containerd."))


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


BACK = Msg("containerd 를 재시작했고 다시 동작하는 것을 확인했습니다.", "containerd was restarted and is confirmed back.")


def _not_back(seen: str) -> Problem:
    return Problem.of("restart.not_back", seen=seen)


def _said(done: subprocess.CompletedProcess) -> str:
    text = (done.stderr or done.stdout or "").strip().splitlines()
    return text[-1] if text else "(no output / 출력 없음)"
