"""Step 9: ask containerd itself how it reads the config (`containerd --config FILE config dump`), and compare
what it reads with what the runbook expects. Asked only when there is a containerd to ask: on a real node, or
with the containerd_bin parameter; otherwise the step is skipped and says why. It writes nothing. The consumer
asks (containerd's: runbook_lib/containerd/consumer/asking.py)."""

from __future__ import annotations

from runbook_lib.findings.problem import Problem
from runbook_lib.findings.messages import Msg
from runbook_lib.findings.catalog import say
from runbook_lib.fs.plan import Plan
from runbook_lib.steps.base import Step

NUMBER, ID = 9, "containerd"
TITLE = say("title.containerd")


def plan(run) -> Plan:
    return run.consumer.ask_plan(run)


def ask_now(run) -> dict | None:
    """The check cell's question: the config as the runtime reads it (the whole dump), or None when there is no
    binary to ask or it could not be had (the verdict then says why, from the same answer)."""
    return run.consumer.ask_now(run)


def skipped(run) -> Msg | None:
    return run.consumer.ask_skipped(run)


def verdict(run) -> list[Problem]:
    return run.consumer.ask_verdict(run)


def message(run) -> Msg | None:
    """What the runtime read for the runtime, next to its default runtime."""
    return run.consumer.ask_message(run)


def evidence(run) -> dict[str, str]:
    return run.consumer.ask_evidence(run)



# The check cell (notebooks/run.ipynb): the files read back as a student would, and what must hold, stated with
# the values this run decided (rb.expected); the plan runs it on the planned state before the first write.
CHECK = """with rb.expect("containerd") as expect:
    dump = rb.ask_containerd()         # containerd --config <config> config dump: the config as containerd reads it
    if dump is not None:               # None: no containerd to ask here, or it refused the config (said below)
        if rb.expected.removing:       # mode=remove: containerd reads the runtime only if the file still has it
            expect.runtime_as_in_file(dump, rb.containerd_config(), runtime_name)
        else:
            nvidia = rb.runtime_table(dump, runtime_name)
            expect.equal(nvidia, "runtime_type", rb.expected.runtime_type)
            expect.equal(nvidia, "options.BinaryName", rb.expected.binary_name)
            expect.boolean(nvidia, "options.SystemdCgroup", rb.expected.systemd_cgroup)
        expect.default_runtime(dump, rb.expected.default)"""

STEP = Step(NUMBER, ID, TITLE, plan, verdict, evidence=evidence, skipped=skipped, message=message, writes=False, judged_in_plan=False, check=CHECK)
