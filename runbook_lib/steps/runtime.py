"""Step 2: the runtime's table under the path of the config's version, written together with its options (one
atomic edit, in place or as a drop-in). Every existing line, comment and key order is kept. The consumer plans
and judges it (containerd's: runbook_lib/containerd/consumer/registering.py)."""

from __future__ import annotations

from runbook_lib.findings.problem import Problem
from runbook_lib.findings.catalog import say
from runbook_lib.fs.plan import Plan
from runbook_lib.steps import found
from runbook_lib.steps.base import Step
from runbook_lib.steps._show import runtime_evidence

NUMBER, ID = 2, "runtime"
TITLE = say("title.runtime")


def variants(run) -> list:
    """nvidia-cdi and nvidia-legacy beside the runtime, when the variants parameter asks for them."""
    return run.consumer.variants(run.wanted) if run.p.variants else []


def plan(run) -> Plan:
    return run.consumer.plan_runtime(run)


def foreign_problem(run, eff) -> Problem | None:
    """Another owner's runtime of that name: apply's plan refuses it, and check says the same."""
    return run.consumer.foreign_runtime(run, eff)


def verdict(run) -> list[Problem]:
    return run.consumer.runtime_problems(run)


def evidence(run) -> dict[str, str]:
    return runtime_evidence(run)



# The check cell (notebooks/run.ipynb): the files read back as a student would, and what must hold, stated with
# the values this run decided (rb.expected); the plan runs it on the planned state before the first write.
CHECK = """cfg = rb.containerd_config()                  # tomllib: config.toml merged with its imports
nvidia = rb.runtime_table(cfg, runtime_name)     # at the path of the config's version
with rb.expect("runtime") as expect:
    expect.equal(nvidia, "runtime_type", rb.expected.runtime_type)"""

STEP = Step(NUMBER, ID, TITLE, plan, verdict, evidence=evidence, check=CHECK, message=found.runtime)
