"""Step 6: the CDI spec. A missing one is written: in a lab, the lab's minimal one; on a node, the node's own,
made by its nvidia-ctk (cdi/generate.py; without one, refused before any write), or, when the node already has
an nvidia.com/gpu spec in another CDI folder, none: that one is judged where it is. An existing one is never
guessed at: it is kept byte for byte, or, when it is not a valid spec of the right kind, the run refuses. Its
top-level keys go to cdi-keys.txt (a node's evidence). On a node, a spec, made or found, is judged as the node
reads it: every path it names is looked up under the root (missing_paths), and a root other than / has its
generated spec's paths moved to the node's own / (cdi/generate.py)."""

from __future__ import annotations

import posixpath

from runbook_lib.cdi import spec as cdi
from runbook_lib.containerd import diagnose
from runbook_lib.containerd.cdi_config import cdi_findings, cdi_settings, plan_cdi
from runbook_lib.steps import toolkit
from runbook_lib.cdi import generate, host_paths
from runbook_lib.cdi.neighbours import conflicting_specs, node_spec, spec_elsewhere
from runbook_lib.findings.errors import RunbookError
from runbook_lib.findings.problem import WARNING, Problem
from runbook_lib.fs.plan import Plan
from runbook_lib.steps import found
from runbook_lib.steps.base import Step
from runbook_lib.steps.lines import Rule
from runbook_lib.findings.catalog import say
from runbook_lib.fs.yamldoc import yaml_line
from runbook_lib.steps._files import expected_text, file_problems
from runbook_lib.steps._show import file_evidence

NUMBER, ID = 6, "cdi"
TITLE = say("title.cdi")
FILE = "cdi-keys.txt"
RULE = Rule(unordered=True)  # "its list of top-level keys": any order


def spec_problems(run, text: str, spec: str | None = None) -> list[Problem]:
    spec = spec or run.p.cdi_spec
    try:
        doc = cdi.load_spec(text, spec)
    except RunbookError as exc:
        return [Problem.from_error(exc)]
    found = cdi.spec_problems(doc, spec, text, node=not run.answer_files)
    if run.answer_files or any(p.is_error for p in found):
        return found  # a lab's spec is the course's (no real devices there); a broken spec's paths say nothing
    return found + missing_paths(run, doc, spec, text)


def missing_paths(run, doc: dict, spec: str, text: str | None) -> list[Problem]:
    """A node's spec, made or found, judged as the node reads it: every path it names (device nodes, mounts,
    hooks) is one the node has under the root, or it is the step's finding, at the first one's line; when
    every missing path is a path of the node under one folder (/host/dev/nvidia0), the fix is the root
    transform that takes that folder off (cdi/host_paths.py)."""
    gone = host_paths.missing(run.target, doc)
    if not gone:
        return []
    paths = [path for _, path in gone]
    where = gone[0][0]
    prefix = host_paths.mount_prefix(run.target, paths)
    code, values = ("cdi.paths_missing.mount_point", {"prefix": prefix}) if prefix else ("cdi.paths_missing", {})
    return [Problem.of(code, spec, yaml_line(text, where), pointer=where, spec=spec, count=len(paths),
                       paths=host_paths.shown(paths), **values)]


def judged_spec(run) -> str:
    """The spec this run judges: cdi_spec; on a node without one there, the node's own nvidia.com/gpu spec in
    another CDI folder (/var/run/cdi, where the toolkit's nvidia-cdi-refresh and the GPU Operator write it),
    judged where it is and never given a twin."""
    spec = run.p.cdi_spec
    if run.answer_files or run.read_text(spec) is not None:
        return spec
    return node_spec(run, spec, cdi.KIND) or spec


def plan(run) -> Plan:
    spec = judged_spec(run)
    text = run.read_text(spec)
    out = Plan(say("steps.cdi.cdi_spec_already_exists", spec=spec), subject=spec)
    if text is None and run.answer_files:  # the lab: "if it is missing, make one"
        text = cdi.build_minimal_spec()
        out.message = say("steps.cdi.write_minimal_cdi_spec", spec=spec)
        out.dirs += run.missing_dirs(posixpath.dirname(spec))
        out.writes.append(run.plan_write(spec, text.encode(), mode=0o644))
    elif text is None:  # a node: its own spec, from its own nvidia-ctk (refused, before any write, without one)
        try:
            text, cmd = generate.generate(run.p, run.target.root, spec)
        except RunbookError as exc:
            out.refusals.append(Problem.from_error(exc))
            out.message = exc.what
            return out
        out.message = say("steps.cdi.write_generated_spec", spec=spec, cmd=cmd)
        found = spec_problems(run, text)
        out.refusals = [p for p in found if p.is_error]
        if out.refusals:
            out.message = out.refusals[0].what
            return out
        out.dirs += run.missing_dirs(posixpath.dirname(spec))
        out.writes.append(run.plan_write(spec, text.encode(), mode=0o644))
    else:
        if spec != run.p.cdi_spec:
            out.message = say("steps.cdi.node_spec_where_it_is", spec=spec, asked=run.p.cdi_spec)
        found = spec_problems(run, text, spec)
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
    """enable_cdi=True: containerd's CRI plugin gets enable_cdi = true and the spec's folder in cdi_spec_dirs,
    every other line of the config kept (containerd/cdi_config.py)."""
    eff = run.effective()
    owner = diagnose.owner_file(eff, run.p.runtime_name)
    edit = plan_cdi(owner.text, owner.data, eff.version, posixpath.dirname(run.p.cdi_spec), lab_path=owner.lab_path)
    out.notes += edit.notes
    return [run.plan_write(owner.lab_path, owner.encode(edit.text))] if edit.changed_from(owner.text) else []


def containerd_cdi(run) -> list[Problem]:
    """Whether containerd will use the spec (CDI on, its folder scanned): required with enable_cdi=True, a
    warning on a real node otherwise (the nvidia runtime itself does not need containerd's CDI), nothing in a
    lab root, where it would only be noise."""
    if not (run.p.enable_cdi or run.target.is_host):
        return []
    eff = run.effective()
    found = cdi_findings(cdi_settings(eff.data, eff.version), posixpath.dirname(run.p.cdi_spec), lab_path=eff.main.lab_path)
    if not run.p.enable_cdi:
        for f in found:
            f.severity = WARNING
    return found


def verdict(run) -> list[Problem]:
    spec = judged_spec(run)
    text = run.read_text(spec)
    if text is None:
        if not run.answer_files:
            return [Problem.of("cdi.spec_missing.node", spec, spec=spec)]
        return [spec_elsewhere(run, spec, cdi.KIND) or Problem.of("cdi.spec_missing", spec, spec=spec)]
    problems = spec_problems(run, text, spec)
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
CHECK = """spec = rb.load_yaml(rb.expected.cdi_spec)  # cdi_spec (a node's own spec where it is); the verdict checks the schema
with rb.expect("cdi") as expect:
    expect.equal(spec, "kind", rb.expected.cdi_kind)
    expect.file(rb.tk("cdi-keys.txt"))"""

STEP = Step(NUMBER, ID, TITLE, plan, verdict, evidence=evidence, rule=RULE, check=CHECK, message=found.cdi)
