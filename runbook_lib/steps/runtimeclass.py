"""Step 7: the RuntimeClass GPU pods opt in with; its handler must name one of containerd's runtimes."""

from __future__ import annotations

from runbook_lib.containerd.versions import runtimes_table
from runbook_lib.k8s import runtimeclass
from runbook_lib.k8s.names import quoted
from runbook_lib.findings.problem import Problem
from runbook_lib.findings.catalog import say
from runbook_lib.fs.yamldoc import yaml_line
from runbook_lib.fs.plan import Plan
from runbook_lib.steps import found
from runbook_lib.steps.base import Step
from runbook_lib.steps._show import file_evidence
from runbook_lib.steps.runtime import variants

NUMBER, ID = 7, "runtimeclass"
TITLE = say("title.runtimeclass")
FILE = "runtimeclass.yaml"


def files(run) -> list[tuple[str, str]]:
    """(lab path, runtime name) of every RuntimeClass: the runtime's, then one per variant."""
    return [(run.tk(FILE), run.p.runtime_name)] + [(run.tk(f"runtimeclass-{v.name}.yaml"), v.name) for v in variants(run)]


def plan(run) -> Plan:
    name = run.p.runtime_name
    return Plan(say("steps.runtimeclass.runtimeclass_handler", name=name),
                writes=[run.plan_write(path, runtimeclass.build_runtimeclass(n).encode()) for path, n in files(run)],
                subject=run.tk(FILE))


def verdict(run) -> list[Problem]:
    return [p for path, name in files(run) for p in judge(run, path, name)]


def judge(run, path: str, name: str) -> list[Problem]:
    text = run.read_text(path)
    if text is None:
        return [Problem.of("runtimeclass.missing", path, file=path, name=name)]
    doc = runtimeclass.load_runtimeclass(text, path)
    eff = run.effective()
    names = sorted((runtimes_table(eff.data, eff.version)[0] or {}).keys())
    handler = doc.get("handler")
    problems = [prob for prob in runtimeclass.runtimeclass_problems(doc, name, path, text)
                if handler in names or prob.code != "runtimeclass.handler"]  # the cross-check below says it better
    registering = run.results.get("runtime")
    if handler == name and handler not in names and registering is not None and registering.failed:
        if not run.answer_files:  # a node: no runtime of that name is read yet, so the RuntimeClass has nothing to name
            problems.append(Problem.of("node.fact.after_earlier_step", run.p.config_path, step=registering.step,
                                       facts=f"handler={handler}"))
        # a lab: the handler is right once step 2 registers the runtime it names, judged on that corrected input
    elif isinstance(handler, str) and handler != handler.strip() and handler.strip() in names:
        # "nvidia " in quotes: a runtime's name with a blank around it, no DNS label (the API server refuses it)
        problems.append(Problem.of("runtimeclass.handler_blanks", path, yaml_line(text, "/handler"),
                                   pointer="/handler", handler=quoted(handler), name=handler.strip()))
    elif handler is not None and handler not in names:  # a missing handler is said above, where it belongs
        problems.append(Problem.of("runtimeclass.handler_not_a_runtime", path, yaml_line(text, "/handler"),
                                   pointer="/handler", handler=str(handler), runtimes=", ".join(names) or "-",
                                   name=name))
    return problems


def evidence(run) -> dict[str, str]:
    return file_evidence(run, FILE)



# The check cell (notebooks/run.ipynb): the files read back as a student would, and what must hold, stated with
# the values this run decided (rb.expected); the plan runs it on the planned state before the first write.
CHECK = """rc = rb.load_yaml(rb.tk("runtimeclass.yaml"))
with rb.expect("runtimeclass") as expect:
    expect.equal(rc, "kind", "RuntimeClass")
    expect.equal(rc, "handler", rb.expected.runtime_name)    # must name a runtime in containerd's config"""

STEP = Step(NUMBER, ID, TITLE, plan, verdict, evidence=evidence, check=CHECK, message=found.runtimeclass)
