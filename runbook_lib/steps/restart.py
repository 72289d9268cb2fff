"""After the steps: restart containerd so that it reads the new config — on a real node, and only when asked
(runbook_lib/containerd/restart.py decides, restarts and confirms that it came back; a distribution's route names
its own restart command)."""

from __future__ import annotations

from runbook_lib.containerd import restart as service
from runbook_lib.findings.problem import Problem
from runbook_lib.findings.catalog import say
from runbook_lib.steps.base import CHANGED, FAILED, RESTART_NEEDED, SKIPPED, UNCHANGED
from runbook_lib.fs.plan import Plan
from runbook_lib.steps.base import Step

NUMBER = ID = "restart"
TITLE = say("title.restart")
CONFIG_STEPS = ("prepare", "runtime", "remove")  # the steps whose writes change what containerd reads


def decision(run, *, changed: bool):
    """Whether to restart: ``.action`` (lab, check, not-needed, needed, restart) and ``.message``."""
    return service.decide(real_node=run.target.is_host, writes=run.mode.writes, config_changed=changed,
                          asked=run.p.restart_containerd, node=run.p.profile == "node", root=str(run.target.root))


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
    chosen, problems = _restart(run, chosen, runner=runner)
    result.message = chosen.message
    result.status = {"lab": SKIPPED, "check": SKIPPED, "not-needed": UNCHANGED, "needed": RESTART_NEEDED}.get(chosen.action, CHANGED)
    run.readings[ID] = problems


def _restart(run, chosen, *, runner=None) -> tuple:
    """The distribution's own restart command (k3s, RKE2, microk8s restart their service), or none when it
    watches its config folder; then systemctl's, confirmed (containerd/restart.py): (the decision as it ended,
    the problems)."""
    problems: list = []
    command = tuple(run.route.restart) if run.route is not None and run.route.restart else tuple(service.RESTART)
    if run.route is not None and not run.route.restart and chosen.action in ("needed", "restart"):
        chosen = service.Decision("not-needed", say("steps.restart.watches_config_folder_reloads", distro=run.route.distro))
    if chosen.action == "restart":
        problems = service.restart_and_confirm(runner or service.run_command, command=command)
        if not problems:
            chosen = service.Decision(chosen.action, service.BACK)
    return chosen, problems


def verdict(run) -> list[Problem]:
    return run.readings.get(ID, [])


def skipped(run):
    result = run.results.get(ID)
    if result is not None and result.status == SKIPPED:
        return result.message
    if not run.mode.writes:
        return decision(run, changed=False).message
    return None


__all__ = ["plan", "act", "verdict", "FAILED"]


STEP = Step(NUMBER, ID, TITLE, plan, verdict, act=act, skipped=skipped, judged_in_plan=False)
