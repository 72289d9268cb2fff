"""Step 3: the runtime's options read back: BinaryName (an absolute path) and SystemdCgroup (a TOML boolean).
They are written together with the table in step 2, so this step only plans what step 2 writes."""

from __future__ import annotations

from runbook_lib.containerd import diagnose
from runbook_lib.containerd.tables import get_in
from runbook_lib.containerd.versions import runtime_path, runtime_table
from runbook_lib.findings.catalog import say
from runbook_lib.findings.problem import Problem
from runbook_lib.fs.plan import Plan
from runbook_lib.fs.tomlvalue import value
from runbook_lib.steps._show import runtime_evidence
from runbook_lib.steps.base import Step
from runbook_lib.steps.runtime import foreign_problem

NUMBER, ID = 3, "options"
TITLE = say("title.options")


def options_paths(eff, name: str) -> list[tuple[str, ...]]:
    """The tables whose options step 3 judges, for its verdict and its check cell alike (one rule, so the cell
    reads what the verdict read): the runtime's, where containerd looks; while it stands only misplaced (step 2's
    finding), each misplaced table, judged on what it holds as it reads once moved; with none, the runtime's path,
    where nothing is (step 3 is then blocked on step 2)."""
    right = runtime_path(eff.version, name)
    if isinstance(get_in(eff.data, right), dict):
        return [right]
    strays = [stray for stray, _, _ in diagnose.stray_runtime_tables(eff, name) if isinstance(get_in(eff.data, stray), dict)]
    return list(dict.fromkeys(strays)) or [right]  # one table headed in two files is one table


def options_subject(run) -> str | None:
    p = run.p
    try:
        eff = run.effective()
        subject = diagnose.header_text(eff, options_paths(eff, p.runtime_name)[0] + ("options",))
    except Exception:  # noqa: BLE001 - an unreadable config is step 2's refusal, said there
        subject = None
    return subject


def verdict(run) -> list[Problem]:
    eff = run.effective()
    foreign = foreign_problem(run, eff)
    if foreign is not None:  # another owner's options are theirs: no fix here may overwrite them
        return [Problem.of("depends.earlier", foreign.path, foreign.line, step=2, what=foreign.what)]
    paths = options_paths(eff, run.p.runtime_name)
    if not isinstance(get_in(eff.data, paths[0]), dict):
        return [Problem.of("depends.runtime_table", eff.main.lab_path, step=2, runtime=run.p.runtime_name)]
    return [p for path in paths for p in diagnose.runtime_problems(eff, run.p, part="options", path=path)]


def plan(run) -> Plan:
    p = run.p
    want = f'BinaryName = "{p.binary_name}", SystemdCgroup = {value(p.systemd_cgroup)}'
    return Plan(say("options.options_written_step_together", want=want), subject=options_subject(run))


def message(run):
    """The options as containerd reads them from the files now (a SystemdCgroup left out reads as false)."""
    eff = run.effective()
    table, _ = runtime_table(eff.data, eff.version, run.p.runtime_name)
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
