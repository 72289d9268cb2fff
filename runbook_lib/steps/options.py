"""Step 3: the runtime's options read back: BinaryName (an absolute path) and SystemdCgroup (a TOML boolean).
They are written together with the table in step 2, so this step only plans what step 2 writes."""

from __future__ import annotations

from runbook_lib.containerd import diagnose
from runbook_lib.containerd.render import value
from runbook_lib.containerd.tables import get_in
from runbook_lib.containerd.versions import runtime_path
from runbook_lib.findings.problem import Problem
from runbook_lib.steps.base import Plan, Step
from runbook_lib.findings.catalog import say
from runbook_lib.steps.runtime import foreign_problem
from runbook_lib.steps._show import runtime_evidence

NUMBER, ID = 3, "options"
TITLE = say("title.options")


def plan(run) -> Plan:
    p = run.p
    want = f'BinaryName = "{p.binary_name}", SystemdCgroup = {value(p.systemd_cgroup)}'
    try:
        eff = run.effective()
        subject = diagnose.header_text(eff, runtime_path(eff.version, p.runtime_name) + ("options",))
    except Exception:  # noqa: BLE001 - an unreadable config is step 2's refusal, said there
        subject = None
    return Plan(say("options.options_written_step_together", want=want), subject=subject)


def verdict(run) -> list[Problem]:
    eff = run.effective()
    table = get_in(eff.data, runtime_path(eff.version, run.p.runtime_name))
    foreign = foreign_problem(run, eff)
    if foreign is not None:  # another owner's options are theirs: no fix here may overwrite them
        return [Problem.of("depends.earlier", foreign.path, foreign.line, step=2, what=foreign.what)]
    if isinstance(table, dict):
        return diagnose.runtime_problems(eff, run.p, part="options")
    problems = [Problem.of("depends.runtime_table", eff.main.lab_path, step=2, runtime=run.p.runtime_name)]
    for stray, _, _ in diagnose.stray_runtime_tables(eff, run.p.runtime_name):  # misplaced: its options count too
        if isinstance(get_in(eff.data, stray), dict):
            problems += diagnose.runtime_problems(eff, run.p, part="options", path=stray)
    return problems


def evidence(run) -> dict[str, str]:
    return runtime_evidence(run)



# The check cell (notebooks/run.ipynb): the files read back as a student would, and what must hold, stated with
# the values this run decided (rb.expected); the plan runs it on the planned state before the first write.
CHECK = """nvidia = rb.runtime_table(rb.containerd_config(), runtime_name)
with rb.expect("options") as expect:
    expect.equal(nvidia, "options.BinaryName", rb.expected.binary_name)
    expect.boolean(nvidia, "options.SystemdCgroup", rb.expected.systemd_cgroup)   # the string "true" is no boolean"""

STEP = Step(NUMBER, ID, TITLE, plan, verdict, evidence=evidence, check=CHECK)
