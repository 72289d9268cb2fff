"""After the steps: restart containerd so that it reads the new config — on a real node, and only when asked
(the consumer decides and confirms that it came back: containerd's is runbook_lib/containerd/restart.py)."""

from __future__ import annotations

from runbook_lib.findings.problem import Problem
from runbook_lib.findings.catalog import say
from runbook_lib.steps.base import CHANGED, FAILED, RESTART_NEEDED, SKIPPED, UNCHANGED
from runbook_lib.fs.plan import Plan
from runbook_lib.steps.base import Step

NUMBER = ID = "restart"
TITLE = say("title.restart")
CONFIG_STEPS = ("prepare", "runtime", "remove")  # the steps whose writes change what containerd reads


def decision(run, *, changed: bool):
    return run.consumer.restart_decision(run, changed=changed)


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
    chosen, problems = run.consumer.restart(run, chosen, runner=runner)
    result.message = chosen.message
    result.status = {"lab": SKIPPED, "check": SKIPPED, "not-needed": UNCHANGED, "needed": RESTART_NEEDED}.get(chosen.action, CHANGED)
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
