"""Step 4: the default runtime stays as it is (GPU pods opt in through a RuntimeClass); default.txt says so."""

from __future__ import annotations

from runbook_lib.containerd.edit import default_runtime_name
from runbook_lib.containerd.diagnose import default_problem
from runbook_lib.steps import toolkit
from runbook_lib.findings.problem import Problem
from runbook_lib.fs.plan import Plan
from runbook_lib.steps.base import Step
from runbook_lib.findings.catalog import say
from runbook_lib.steps._files import expected_text, file_problems
from runbook_lib.steps._show import file_evidence

NUMBER, ID = 4, "default"
TITLE = say("title.default")
FILE = "default.txt"
SAFE_DEFAULT = "runc"


def plan(run) -> Plan:
    eff = run.effective()
    default = default_runtime_name(eff.data, eff.version)
    problem = default_problem(eff, run.p, run.expected.default)
    # The file says what the default will be once the config is right, even when this plan refuses.
    content = toolkit.default_txt(SAFE_DEFAULT if problem else default)
    out = Plan(say("default_runtime.default_runtime_not_changed", default=default),
               writes=[run.plan_write(run.tk(FILE), content.encode())], subject=run.tk(FILE))
    if problem:
        out.refusals.append(problem)
        out.message = problem.what
    return out


def verdict(run) -> list[Problem]:
    eff = run.effective()
    problems = [p for p in [default_problem(eff, run.p, run.expected.default)] if p]
    default = SAFE_DEFAULT if problems else default_runtime_name(eff.data, eff.version)  # what it is once fixed
    expected = expected_text(run, ID, run.tk(FILE), lambda: toolkit.default_txt(default))
    return problems + file_problems(run, run.tk(FILE), expected)


def evidence(run) -> dict[str, str]:
    return file_evidence(run, FILE)



# The check cell (notebooks/run.ipynb): the files read back as a student would, and what must hold, stated with
# the values this run decided (rb.expected); the plan runs it on the planned state before the first write.
CHECK = """cfg = rb.containerd_config()
cri = rb.containerd_table(cfg)
with rb.expect("default") as expect:
    expect.default_runtime(cfg, rb.expected.default)   # this run's rule: the lab's, or the node's own default kept
    expect.line(rb.tk("default.txt"), "DEFAULT", cri.get("default_runtime_name", "runc"))
    expect.line(rb.tk("default.txt"), "WHY", "runtimeclass")"""

def message(run):
    """The default runtime as the files hold it now (check mode: as found; apply: after the writes)."""
    eff = run.effective()
    return say("found.default", default=default_runtime_name(eff.data, eff.version))


def fact(run) -> str:
    eff = run.effective()
    return toolkit.default_txt(default_runtime_name(eff.data, eff.version))


STEP = Step(NUMBER, ID, TITLE, plan, verdict, evidence=evidence, check=CHECK, fact=fact, message=message)
