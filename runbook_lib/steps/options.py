"""Step 3: the runtime's options read back: BinaryName (an absolute path) and SystemdCgroup (a TOML boolean).
They are written together with the table in step 2, so this step only plans what step 2 writes."""

from __future__ import annotations

from runbook_lib.fs.tomlvalue import value
from runbook_lib.findings.problem import Problem
from runbook_lib.fs.plan import Plan
from runbook_lib.steps.base import Step
from runbook_lib.findings.catalog import say
from runbook_lib.steps._show import runtime_evidence

NUMBER, ID = 3, "options"
TITLE = say("title.options")


def plan(run) -> Plan:
    p = run.p
    want = f'BinaryName = "{p.binary_name}", SystemdCgroup = {value(p.systemd_cgroup)}'
    subject = run.consumer.options_subject(run)
    return Plan(say("options.options_written_step_together", want=want), subject=subject)


def verdict(run) -> list[Problem]:
    return run.consumer.options_problems(run)


def message(run):
    """The options as containerd reads them from the files now (a SystemdCgroup left out reads as false)."""
    eff = run.effective()
    table, _ = run.consumer.runtime_table(eff.data, eff.version, run.p.runtime_name)
    options = table.get("options") if isinstance(table, dict) else None
    if not isinstance(options, dict) or "BinaryName" not in options:
        return None  # another layout's runtime (a distribution's template): its plan says what it holds
    return say("options.read_back", binary=value(options["BinaryName"]),
               cgroup=value(options.get("SystemdCgroup", False)))


def evidence(run) -> dict[str, str]:
    return runtime_evidence(run)



# The check cell (notebooks/run.ipynb): the files read back as a student would, and what must hold, stated with
# the values this run decided (rb.expected); the plan runs it on the planned state before the first write.
CHECK = """cfg = rb.containerd_config()
with rb.expect("options") as expect:
    for nvidia in rb.options_tables(cfg, runtime_name):   # where containerd looks, or a misplaced table where it is
        expect.equal(nvidia, "options.BinaryName", rb.expected.binary_name)
        expect.boolean(nvidia, "options.SystemdCgroup", rb.expected.systemd_cgroup)   # the string "true" is no boolean"""

STEP = Step(NUMBER, ID, TITLE, plan, verdict, evidence=evidence, check=CHECK, message=message)
