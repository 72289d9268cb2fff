"""Step 5: the config read back with the standard library's tomllib (a parser independent of the edit); its
version and runtimes go to parsed.txt."""

from __future__ import annotations

from runbook_lib.containerd.versions import of, runtimes_table
from runbook_lib.containerd.edit import default_runtime_name
from runbook_lib.containerd.diagnose import default_problem
from runbook_lib.steps import toolkit
from runbook_lib.findings.problem import Problem
from runbook_lib.fs.plan import Plan
from runbook_lib.steps.base import Step
from runbook_lib.steps.lines import Rule
from runbook_lib.findings.catalog import say
from runbook_lib.steps._files import expected_text, file_problems
from runbook_lib.steps._show import file_evidence

NUMBER, ID = 5, "parse"
TITLE = say("title.parse")
FILE = "parsed.txt"
RULE = Rule(lists=("RUNTIMES",))  # the lab asks for "the list of registered runtime names": any order
DEPENDS = ("runtime", "options")


def parsed(run) -> tuple[str, list[str]]:
    eff = run.effective()
    # the config's order, as the lab's `list(d[...]["runtimes"])` lists them (a fix in another order than the
    # student's own config read as a different answer; any order passes, lines.py)
    runtimes = list((runtimes_table(eff.data, eff.version)[0] or {}).keys())
    return toolkit.parsed_txt(eff.version, runtimes), runtimes


def _kept(run, content: str) -> str:
    """The file as it is when it already says the same under the rule (another order): a second run, or a run
    after the order changed, rewrites nothing."""
    from runbook_lib.findings.errors import RunbookError
    from runbook_lib.steps.lines import same

    try:
        got = run.read_text(run.tk(FILE))
    except RunbookError:  # a FIFO or a folder standing there: the verdict says so
        return content
    return got if got is not None and got.endswith("\n") and same(RULE, got, content) else content


def plan(run) -> Plan:
    content = _kept(run, parsed(run)[0])
    shown = content.strip().replace("\n", ", ")
    return Plan(say("parse.read_tomllib", shown=shown),
                writes=[run.plan_write(run.tk(FILE), content.encode())], subject=run.tk(FILE))


def verdict(run) -> list[Problem]:
    content, runtimes = parsed(run)
    eff = run.effective()
    # containerd 1.x forgets its built-in runc once any runtime table is written, so the default must be listed
    # there; containerd 2.x (config version 3 and 4) keeps its built-in runc beside the tables of the file.
    needed = (run.p.runtime_name,) if of(eff.version).keeps_builtin_runc else (default_runtime_name(eff.data, eff.version), run.p.runtime_name)
    wrong_default = default_problem(eff, run.p, run.expected.default)
    if wrong_default is not None and wrong_default.code == "default.not_a_runtime":  # step 4's verdict says it
        needed = (run.p.runtime_name,)
    if any(run.results[s].failed for s in DEPENDS if s in run.results):
        needed = ()  # the runtime table is step 2's (or 3's) finding: this step is blocked by it, said below
    problems = [Problem.of("parse.runtime_not_listed", run.p.config_path, runtime=name, listed=", ".join(runtimes) or "-")
                for name in dict.fromkeys(needed) if name not in runtimes]
    expected = expected_text(run, ID, run.tk(FILE), lambda: content)
    return problems + file_problems(run, run.tk(FILE), expected, depends=DEPENDS, rule=RULE, derived=lambda: content)


def evidence(run) -> dict[str, str]:
    return file_evidence(run, FILE)



# The check cell (notebooks/run.ipynb): the files read back as a student would, and what must hold, stated with
# the values this run decided (rb.expected); the plan runs it on the planned state before the first write.
CHECK = """cfg = rb.containerd_config()             # what containerd reads: config.toml merged with its imports
with rb.expect("parse") as expect:
    parsed = expect.toml(rb.config_path)   # tomllib.load(open(path, "rb")): a syntax error is this step's finding
    expect.line(rb.tk("parsed.txt"), "VERSION", rb.version(parsed))
    expect.line(rb.tk("parsed.txt"), "RUNTIMES", rb.runtime_names(cfg))   # in any order (docs/GRADING.md)"""

STEP = Step(NUMBER, ID, TITLE, plan, verdict, evidence=evidence, depends=DEPENDS, rule=RULE, check=CHECK,
            fact=lambda run: parsed(run)[0])
