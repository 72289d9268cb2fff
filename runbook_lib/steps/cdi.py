"""Step 6: the CDI spec. A missing one is written (minimal and valid); an existing one is never guessed at: it
is kept byte for byte, or, when it is not a valid spec of the right kind, the run refuses. Its top-level keys
go to cdi-keys.txt."""

from __future__ import annotations

import posixpath

from runbook_lib.cdi import spec as cdi
from runbook_lib.steps import toolkit
from runbook_lib.cdi.neighbours import conflicting_specs, spec_elsewhere
from runbook_lib.findings.errors import RunbookError
from runbook_lib.findings.problem import Problem
from runbook_lib.fs.plan import Plan
from runbook_lib.steps.base import Step
from runbook_lib.steps.lines import Rule
from runbook_lib.findings.catalog import say
from runbook_lib.steps._files import expected_text, file_problems
from runbook_lib.steps._show import file_evidence

NUMBER, ID = 6, "cdi"
TITLE = say("title.cdi")
FILE = "cdi-keys.txt"
RULE = Rule(unordered=True)  # "its list of top-level keys": any order


def spec_problems(run, text: str) -> list[Problem]:
    try:
        doc = cdi.load_spec(text, run.p.cdi_spec)
    except RunbookError as exc:
        return [Problem.from_error(exc)]
    return cdi.spec_problems(doc, run.p.cdi_spec, text)


def plan(run) -> Plan:
    spec = run.p.cdi_spec
    text = run.read_text(spec)
    out = Plan(say("steps.cdi.cdi_spec_already_exists", spec=spec), subject=spec)
    if text is None:
        text = cdi.build_minimal_spec()
        out.message = say("steps.cdi.write_minimal_cdi_spec", spec=spec)
        out.dirs += run.missing_dirs(posixpath.dirname(spec))
        out.writes.append(run.plan_write(spec, text.encode(), mode=0o644))
    else:
        found = spec_problems(run, text)
        out.refusals = [p for p in found if p.is_error]
        out.notes += [p.what for p in found if not p.is_error]  # a warning (a newer cdiVersion) stops nothing
        if out.refusals:
            out.message = out.refusals[0].what
            out.notes.append(say("steps.cdi.existing_spec_not_guessed"))
            return out
    out.writes.append(run.plan_write(run.tk(FILE), toolkit.cdi_keys_txt(cdi.top_level_keys(text)).encode()))
    if run.p.enable_cdi:
        out.writes += _enable_cdi(run, out)
    return out


def _enable_cdi(run, out: Plan) -> list:
    """enable_cdi=True: the consumer turns its CDI on with the spec's folder, every other line of its config kept
    (containerd's: runbook_lib/containerd/cdi_config.py)."""
    return run.consumer.plan_cdi_settings(run, out.notes)


def containerd_cdi(run) -> list[Problem]:
    """Whether the consumer will use the spec (CDI on, its folder scanned)."""
    return run.consumer.cdi_settings_problems(run)


def verdict(run) -> list[Problem]:
    spec = run.p.cdi_spec
    text = run.read_text(spec)
    if text is None:
        return [spec_elsewhere(run, spec, cdi.KIND) or Problem.of("cdi.spec_missing", spec, spec=spec)]
    problems = spec_problems(run, text)
    if any(p.is_error for p in problems):
        return problems
    problems += conflicting_specs(run, spec, cdi.load_spec(text, spec))
    if any(p.is_error for p in problems):
        return problems
    expected = expected_text(run, ID, run.tk(FILE), lambda: toolkit.cdi_keys_txt(cdi.top_level_keys(text)))
    return problems + file_problems(run, run.tk(FILE), expected, rule=RULE) + containerd_cdi(run)


def evidence(run) -> dict[str, str]:
    return file_evidence(run, FILE)



# The check cell (notebooks/run.ipynb): the files read back as a student would, and what must hold, stated with
# the values this run decided (rb.expected); the plan runs it on the planned state before the first write.
CHECK = """spec = rb.load_yaml(cdi_spec)     # yaml.safe_load; the verdict also checks the CDI schema
with rb.expect("cdi") as expect:
    expect.equal(spec, "kind", rb.expected.cdi_kind)
    expect.file(rb.tk("cdi-keys.txt"))"""

STEP = Step(NUMBER, ID, TITLE, plan, verdict, evidence=evidence, rule=RULE, check=CHECK)
