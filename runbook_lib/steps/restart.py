"""After the steps: restart containerd so that it reads the new config — on a real node, and only when asked
(runbook_lib/containerd/restart.py decides and confirms that containerd came back)."""

from __future__ import annotations

from runbook_lib.containerd import restart as service
from runbook_lib.findings.problem import Problem
from runbook_lib.findings.catalog import say
from runbook_lib.steps.base import CHANGED, FAILED, SKIPPED, UNCHANGED
from runbook_lib.steps.base import Plan, Step

NUMBER = ID = "restart"
TITLE = say("title.restart")
CONFIG_STEPS = ("prepare", "runtime", "remove")  # the steps whose writes change what containerd reads


def decision(run, *, changed: bool) -> service.Decision:
    return service.decide(real_node=run.target.is_host, check_only=run.p.check_only, config_changed=changed,
                          asked=run.p.restart_containerd)


def plan(run) -> Plan:
    changed = any(run.plans[s].changed for s in CONFIG_STEPS if s in run.plans)
    return Plan(decision(run, changed=changed).message)


def config_written(run) -> bool:
    """This run wrote (or retired) a file containerd reads its config from."""
    config_files = {w.lab_path for s in CONFIG_STEPS if s in run.plans for w in run.plans[s].writes} | \
        {lab for s in CONFIG_STEPS if s in run.plans for lab in run.plans[s].retire}
    return any(path in run.written for path in config_files)


def act(run, result, runner=None) -> None:
    """Called by Run.commit in apply mode: restart when the decision says so, and confirm."""
    chosen = decision(run, changed=config_written(run))
    result.message = chosen.message
    result.status = {"lab": SKIPPED, "check": SKIPPED, "not-needed": UNCHANGED, "needed": SKIPPED}.get(chosen.action, CHANGED)
    problems: list[Problem] = []
    command = tuple(run.route.restart) if run.route is not None and run.route.restart else tuple(service.RESTART)
    if run.route is not None and not run.route.restart and chosen.action in ("needed", "restart"):
        chosen = service.Decision("not-needed", say("steps.restart.watches_config_folder_reloads", distro=run.route.distro))
        result.message, result.status = chosen.message, UNCHANGED
    if chosen.action == "restart":
        problems = service.restart_and_confirm(runner or service.run_command, command=command)
        if not problems:
            result.message = service.BACK
    run.readings[ID] = problems


def verdict(run) -> list[Problem]:
    return run.readings.get(ID, [])


def skipped(run):
    result = run.results.get(ID)
    if result is not None and result.status == SKIPPED:
        return result.message
    if run.p.check_only:
        return decision(run, changed=False).message
    return None


__all__ = ["plan", "act", "verdict", "FAILED"]


STEP = Step(NUMBER, ID, TITLE, plan, verdict, act=act, skipped=skipped, judged_in_plan=False)
