"""Step 8: report.txt, every value parsed back from the files (the config and the RuntimeClass), never copied
from the parameters."""

from __future__ import annotations

from runbook_lib.containerd.versions import runtimes_table
from runbook_lib.k8s import runtimeclass
from runbook_lib.steps import toolkit
from runbook_lib.findings.problem import Problem
from runbook_lib.findings.messages import Msg
from runbook_lib.findings.catalog import say
from runbook_lib.fs.plan import Plan
from runbook_lib.steps.base import Step
from runbook_lib.steps._files import expected_text, file_problems
from runbook_lib.steps._show import file_evidence

NUMBER, ID = 8, "report"
TITLE = say("title.report")
FILE = "report.txt"
DEPENDS = ("runtime", "options", "runtimeclass")
KEYS = ("CONFIG_VERSION", "RUNTIME", "RUNTIME_TYPE", "SYSTEMD_CGROUP", "HANDLER")  # the lab's five lines


def _read(run) -> tuple:
    """(config version, the config's runtimes, the RuntimeClass's handler) as the files stand."""
    eff = run.effective()
    rc = run.tk("runtimeclass.yaml")
    text = run.read_text(rc)
    doc = runtimeclass.load_runtimeclass(text, rc) if text is not None else {}  # no RuntimeClass: no handler
    return eff.version, runtimes_table(eff.data, eff.version)[0] or {}, doc.get("handler")


def _lines(version, runtimes: dict, name, handler, runtime=None) -> str:
    """report.txt of the runtime ``name`` (RUNTIME: ``runtime`` when given, else its name when it is one)."""
    table = runtimes.get(name) if isinstance(runtimes.get(name), dict) else {}
    options = table.get("options")
    shown = runtime if runtime is not None else name if name in runtimes else ""
    # as containerd reads it: a key left out of a runtime's options is false, its zero value
    cgroup = options.get("SystemdCgroup", False) if isinstance(options, dict) else None
    return toolkit.report_txt(version, shown, table.get("runtime_type"), cgroup, handler if handler is not None else "")


def report(run) -> str:
    version, runtimes, handler = _read(run)
    return _lines(version, runtimes, handler if handler in runtimes else run.p.runtime_name, handler)


def readings(run) -> list[str]:
    """Every report.txt the lab's words allow from the files as they stand: the runtime the handler names (else
    the lab's), and the check cell's reading (RUNTIME and HANDLER both the handler, the values of the runtime
    it names: none when it names none). With a right handler they are one file; with a wrong one (step 7's
    mistake) each reports the student's own files faithfully (_files.py)."""
    version, runtimes, handler = _read(run)
    named = str(handler) if isinstance(handler, (str, int, float)) and not isinstance(handler, bool) else ""
    return [report(run), _lines(version, runtimes, handler, handler, named),
            _lines(version, runtimes, handler, handler)]


def plan(run) -> Plan:
    content = report(run)
    return Plan(Msg.verbatim(content.strip().replace("\n", ", ")),
                writes=[run.plan_write(run.tk(FILE), content.encode())], subject=run.tk(FILE))


def verdict(run) -> list[Problem]:
    expected = expected_text(run, ID, run.tk(FILE), lambda: report(run))
    return file_problems(run, run.tk(FILE), expected, depends=DEPENDS, derived=lambda: readings(run))


def evidence(run) -> dict[str, str]:
    return file_evidence(run, FILE)



# The check cell (notebooks/run.ipynb): the files read back as a student would, and what must hold, stated with
# the values this run decided (rb.expected); the plan runs it on the planned state before the first write.
CHECK = """cfg, rc = rb.containerd_config(), rb.load_yaml(rb.tk("runtimeclass.yaml"))
nvidia = rb.runtime_table(cfg, rc.get("handler", runtime_name))
report = rb.tk("report.txt")                   # every value parsed back from the files, never the parameters
with rb.expect("report") as expect:
    expect.line(report, "CONFIG_VERSION", rb.version(cfg))
    expect.line(report, "RUNTIME", rc.get("handler"))
    expect.line(report, "RUNTIME_TYPE", nvidia.get("runtime_type"))
    expect.line(report, "SYSTEMD_CGROUP", nvidia.get("options", {}).get("SystemdCgroup", False))  # as containerd reads it
    expect.line(report, "HANDLER", rc.get("handler"))"""

STEP = Step(NUMBER, ID, TITLE, plan, verdict, evidence=evidence, depends=DEPENDS, check=CHECK, fact=report)
