"""After the restart: a pod through the handler, as the GPU Operator's validator proves a node (`smoke`).

- off: skipped, saying what it would prove and how to turn it on;
- sandbox: a throw-away containerd on a copy of the config containerd would read (runbook_lib/containerd/
  smoke/sandbox.py), the pod started through the RuntimeClass's handler, the configured binary a recording
  stand-in; nothing is written under the root;
- node: the node's running containerd over its CRI socket (smoke/node.py), a container running
  `smoke_command` from `smoke_image`; only once the written config is in effect.

The pod runs once per run (``attempt``: the action cell, or the verdict when no cell ran it) and its facts are
judged by runbook_lib/containerd/smoke/facts.py's ``judge``, which the check cell states as its assertions. The
consumer starts and judges it (containerd's: runbook_lib/containerd/consumer/pod.py).
"""

from __future__ import annotations

from runbook_lib.cdi import edits as cdi_edits
from runbook_lib.findings.problem import Problem, words
from runbook_lib.findings.messages import Msg
from runbook_lib.findings.catalog import say
from runbook_lib.fs.plan import Plan
from runbook_lib.steps.base import CHANGED, Step
from runbook_lib.steps import restart

NUMBER = ID = "pod"
TITLE = say("title.pod")


def _said(code: str, **values) -> Msg:
    """A catalog entry's what and fix as one message (a skip says why, and how to turn the step on)."""
    what, fix, _ = words(code, **values)
    return what.then(fix)


def plan(run) -> Plan:
    if run.p.smoke == "off":
        return Plan(_said("pod.off"))
    return run.consumer.pod_plan(run)


def skipped(run) -> Msg | None:
    if run.p.smoke == "off":
        return _said("pod.off")
    why = run.consumer.pod_skipped(run)
    if why is not None:
        return why
    reading = run.readings.get(ID)
    return reading if isinstance(reading, Msg) else None


def _pending_restart(run) -> bool:
    """This run wrote the config containerd reads, and containerd has not been restarted since."""
    done = run.results.get(restart.ID)
    return restart.config_written(run) and not (done is not None and done.status == CHANGED)


def attempt(run):
    """Start the pod (once per run): the consumer's reading of what it did, or the reason it was not tried (a Msg)."""
    if skipped(run) is not None and ID not in run.readings:
        return None
    if ID not in run.readings:
        run.readings[ID] = run.consumer.pod_attempt(run, pending_restart=lambda: _pending_restart(run),
                                                    expected_edits=cdi_edits.expected_edits)
    return run.readings[ID]


# containerd's refusal of the pod that only says again what an earlier step failed for (the string boolean at
# step 3, a runtime or handler steps 2 and 7 got wrong): that step's mistake, so this step is blocked by it
CAUSES = {"pod.rejected.string_boolean": ("options",), "pod.rejected.no_runtime": ("runtime", "runtimeclass"),
          "pod.rejected.runtime_type": ("runtime",)}


def _earlier(run, found: Problem) -> Problem:
    for step_id in CAUSES.get(found.code, ()):
        done = run.results.get(step_id)
        if done is not None and done.failed:
            return Problem.of("depends.earlier", found.path, found.line, col=found.col, step=done.step, what=found.what)
    return found


def verdict(run) -> list[Problem]:
    return [_earlier(run, found) for found in run.consumer.pod_problems(run, attempt(run))]


def facts(run) -> dict:
    """What the pod did, for the check cell's assertions ({} when the step did not run a pod)."""
    return run.consumer.pod_facts(run.readings.get(ID))


def message(run) -> Msg | None:
    return run.consumer.pod_message(run, run.readings.get(ID))


def evidence(run) -> dict[str, str]:
    """The handler, the sandbox id, the binary that ran and the container's output, as a person reads them."""
    return run.consumer.pod_evidence(run.readings.get(ID))


# it writes nothing under the root (its status is its verdict) and is judged after the restart: it starts a pod

# The check cell (notebooks/run.ipynb), after the action cell that tried the pod (`pod = rb.try_pod(plan)`): the
# verdict's facts (containerd/smoke/facts.py) stated with the values this run decided (rb.expected).
CHECK = """with rb.expect("pod") as expect:   # the verdict's rules (runbook_lib/containerd/smoke/facts.py)
    if smoke == "sandbox":
        expect.equal(pod, "handler", rb.expected.runtime_name)    # the pod started through the RuntimeClass's handler
        expect.equal(pod, "binary_called", True)                  # containerd's shim called the BinaryName's stand-in
        expect.equal(pod, "systemd_cgroup_flag", rb.expected.systemd_cgroup)  # --systemd-cgroup, with SystemdCgroup = true
        expect.equal(pod, "default_ran_it", False)                # a pod of the default runtime did not go through it
    elif smoke == "node":
        expect.equal(pod, "exit_code", 0)                         # smoke_command exited 0 ...
        expect.true(pod.get("gpu_lines"), "a 'GPU n:' line in the output")  # ... and listed a GPU
        expect.equal(pod, "cdi_missing", [])                      # with enable_cdi: the CDI spec's edits arrived
    expect.equal(pod, "left", [])                                 # no pod, container, daemon, shim, mount or cgroup left"""

STEP = Step(NUMBER, ID, TITLE, plan, verdict, evidence=evidence, skipped=skipped, message=message, writes=False,
            judged_in_plan=False, check=CHECK)
