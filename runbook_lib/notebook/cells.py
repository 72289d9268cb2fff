"""The notebook's check cells, as their code: tools/build_notebook.py writes them into notebooks/run.ipynb, and the
preflight runs the same code on the planned state (``judge_planned``), so a run whose cell would fail after its
writes refuses before the first one. What a cell asserts is then what the run was judged by twice: by the step's
verdict, and by the visible assertions themselves.
"""

from __future__ import annotations

import functools
from contextlib import contextmanager

from runbook_lib.findings.errors import RunbookError
from runbook_lib.findings.problem import Problem
from runbook_lib.notebook.expect import Expect

# The check cell of each step: the files read back with the parser a student would use, and the assertions
# stated visibly (runbook_lib/notebook/expect.py).
CHECKS = {
    "prepare": """with rb.expect("prepare") as expect:
    expect.true(rb.is_dir(toolkit_dir), "expect.toolkit_dir_exists")
    expect.true((rb.read(rb.config_path) or "").strip(), "expect.config_not_empty")""",
    "runtime": """cfg = rb.containerd_config()                  # tomllib: config.toml merged with its imports
nvidia = rb.runtime_table(cfg, runtime_name)     # at the path of the config's version
with rb.expect("runtime") as expect:
    expect.equal(nvidia, "runtime_type", "io.containerd.runc.v2")""",
    "options": """nvidia = rb.runtime_table(rb.containerd_config(), runtime_name)
with rb.expect("options") as expect:
    expect.equal(nvidia, "options.BinaryName", binary_name)
    expect.boolean(nvidia, "options.SystemdCgroup", systemd_cgroup)   # the string "true" is not a boolean""",
    "default": """cri = rb.containerd_table(rb.containerd_config())
with rb.expect("default") as expect:
    expect.not_equal(cri, "default_runtime_name", runtime_name)    # GPU pods opt in via a RuntimeClass
    expect.line(rb.tk("default.txt"), "DEFAULT", cri.get("default_runtime_name", "runc"))
    expect.line(rb.tk("default.txt"), "WHY", "runtimeclass")""",
    "parse": """cfg = rb.containerd_config()             # what containerd reads: config.toml merged with its imports
with rb.expect("parse") as expect:
    parsed = expect.toml(rb.config_path)   # tomllib.load(open(path, "rb")): a syntax error is this step's finding
    expect.line(rb.tk("parsed.txt"), "VERSION", rb.version(parsed))
    expect.line(rb.tk("parsed.txt"), "RUNTIMES", rb.runtime_names(cfg))   # in any order (docs/GRADING.md)""",
    "cdi": """spec = rb.load_yaml(cdi_spec)     # yaml.safe_load; the verdict also checks the CDI schema
with rb.expect("cdi") as expect:
    expect.equal(spec, "kind", "nvidia.com/gpu")
    expect.file(rb.tk("cdi-keys.txt"))""",
    "runtimeclass": """rc = rb.load_yaml(rb.tk("runtimeclass.yaml"))
with rb.expect("runtimeclass") as expect:
    expect.equal(rc, "kind", "RuntimeClass")
    expect.equal(rc, "handler", runtime_name)    # must name a runtime in containerd's config""",
    "report": """cfg, rc = rb.containerd_config(), rb.load_yaml(rb.tk("runtimeclass.yaml"))
nvidia = rb.runtime_table(cfg, rc.get("handler", runtime_name))
report = rb.tk("report.txt")                   # every value parsed back from the files, never the parameters
with rb.expect("report") as expect:
    expect.line(report, "CONFIG_VERSION", rb.version(cfg))
    expect.line(report, "RUNTIME", rc.get("handler"))
    expect.line(report, "RUNTIME_TYPE", nvidia.get("runtime_type"))
    expect.line(report, "SYSTEMD_CGROUP", nvidia.get("options", {}).get("SystemdCgroup"))
    expect.line(report, "HANDLER", rc.get("handler"))""",
    "containerd": """# containerd --config <config> config dump must report, for runtimes.<runtime_name>: runtime_type
# "io.containerd.runc.v2", options.BinaryName = binary_name, options.SystemdCgroup = systemd_cgroup (a boolean,
# not a string), and the default runtime as it was (the table below puts its reading beside these)
rb.check("containerd")""",
}


class _Planned:
    """The run as a check cell sees it during the preflight: every read goes through the planned state; the
    cell's `with rb.expect(...)` collects its assertions without judging or showing anything."""

    def __init__(self, rb):
        self._rb = rb
        self.found: dict[str, Expect] = {}

    def __getattr__(self, name):
        return getattr(self._rb, name)

    @contextmanager
    def expect(self, step_id: str, path: str | None = None):
        checks = Expect(self._rb, step_id, path or self._rb.p.config_path)
        self.found[step_id] = checks
        yield checks

    def check(self, step_id: str) -> None:
        """A cell without assertions of its own (step 9): its verdict is judged after the writes."""


def compiled(step_id: str):
    """A check cell's code, compiled once per process for its text (each preflight ran compile() on every
    cell again)."""
    return _compile(CHECKS[step_id], step_id)


@functools.lru_cache(maxsize=64)
def _compile(code: str, step_id: str):
    return compile(code, f"<check cell {step_id}>", "exec")


def judge_planned(rb) -> None:
    """Run every check cell of a step judged in the plan on the planned state; a failed assertion is a refusal
    of that step (its finding says which assertion, what it read, and its fix). Only when the verdicts found
    nothing: their findings say the same mistake better, with its line."""
    planned = _Planned(rb)
    namespace = {**rb.p.as_dict(), "rb": planned}
    for step in rb.steps:
        code = CHECKS.get(step.id)
        if code is None or not step.judged_in_plan:
            continue
        try:
            exec(compiled(step.id), dict(namespace))  # noqa: S102 - our own cells
        except RunbookError as exc:  # a file the cell reads cannot be read: the step's own finding, said as one
            rb.plans[step.id].refusals.append(Problem.from_error(exc))
            continue
        checks = planned.found.get(step.id)
        if checks is not None:
            rb.plans[step.id].refusals += checks.uncovered(rb.plans[step.id].refusals)
