"""After the restart: a pod through the handler, as the GPU Operator's validator proves a node (`smoke`).

- off: skipped, saying what it would prove and how to turn it on;
- sandbox: a throw-away containerd on a copy of the config containerd would read (runbook_lib/containerd/
  smoke/sandbox.py), the pod started through the RuntimeClass's handler, the configured binary a recording
  stand-in; nothing is written under the root;
- node: the node's running containerd over its CRI socket (smoke/node.py), a container running
  `smoke_command` from `smoke_image`; only once the written config is in effect.

The pod runs once per run (``attempt``: the action cell, or the verdict when no cell ran it) and its facts are
judged by runbook_lib/containerd/smoke/facts.py's ``judge``, which the check cell states as its assertions.
"""

from __future__ import annotations

import shutil

from runbook_lib.cdi import edits as cdi_edits
from runbook_lib.containerd.smoke import facts as smoke_facts
from runbook_lib.containerd.smoke import node as smoke_node
from runbook_lib.containerd.smoke.show import lines
from runbook_lib.findings.catalog import say
from runbook_lib.findings.errors import RunbookError
from runbook_lib.findings.messages import Msg
from runbook_lib.findings.problem import Problem, words
from runbook_lib.fs.plan import Plan
from runbook_lib.fs.yamldoc import safe_load
from runbook_lib.steps import restart
from runbook_lib.steps.base import CHANGED, Step

NUMBER = ID = "pod"
TITLE = say("title.pod")
CDI_DEVICE = "all"  # what nvidia-ctk names the device of every GPU: the GPU Operator asks for nvidia.com/gpu=all


def _said(code: str, **values) -> Msg:
    """A catalog entry's what and fix as one message (a skip says why, and how to turn the step on)."""
    what, fix, _ = words(code, **values)
    return what.then(fix)


def containerd_binary(run) -> str | None:
    return run.p.containerd_bin or shutil.which("containerd") or shutil.which("containerd", path="/usr/sbin:/sbin")


def endpoint(run) -> str | None:
    """The node's CRI socket for `node`; None in a lab root without cri_endpoint (nothing runs there)."""
    if not run.p.cri_endpoint and not run.target.is_host:
        return None
    return smoke_node.endpoint(run.p.cri_endpoint, run.route.distro if run.route is not None else None)


def plan(run) -> Plan:
    p = run.p
    if p.smoke == "sandbox":
        return Plan(words("pod.plan_sandbox", containerd=containerd_binary(run) or "containerd")[0])
    if p.smoke == "node":
        where = endpoint(run) or "-"
        return Plan(words("pod.plan_node", endpoint=where, handler=p.runtime_name, image=p.smoke_image,
                          command=p.smoke_command)[0], subject=where)
    return Plan(_said("pod.off"))


def skipped(run) -> Msg | None:
    if run.p.smoke == "off":
        return _said("pod.off")
    if run.p.smoke == "node" and endpoint(run) is None:
        return _said("pod.no_endpoint", root=run.target.root)
    reading = run.readings.get(ID)
    return reading if isinstance(reading, Msg) else None


def _pending_restart(run) -> bool:
    """This run wrote the config containerd reads, and containerd has not been restarted since."""
    done = run.results.get(restart.ID)
    return restart.config_written(run) and not (done is not None and done.status == CHANGED)


def _handler(run) -> tuple[str | None, str | None]:
    """The handler the RuntimeClass names (the file step 7 wrote or the student wrote), or why there is none."""
    path = run.tk("runtimeclass.yaml")
    try:
        doc = safe_load(run.read_text(path) or "")
    except Exception:  # noqa: BLE001 - step 7's verdict says what is wrong with it, with the line
        return None, path
    handler = doc.get("handler") if isinstance(doc, dict) else None
    return (handler, None) if isinstance(handler, str) and handler else (None, path)


def _sandbox(run):
    try:
        eff = run.effective()
    except RunbookError as exc:
        return _said("pod.blocked", reason=exc.what)
    handler, unread = _handler(run)
    if handler is None:
        return _said("pod.blocked", reason=say("pod.handler_of", unread=unread))
    from runbook_lib.containerd.smoke import sandbox as smoke_sandbox  # grpc: only when a pod is started

    return smoke_sandbox.run(data=eff.data, version=eff.version, handler=handler, runtime=run.p.runtime_name,
                             containerd=containerd_binary(run), timeout=run.p.smoke_timeout)


def _cdi_request(run, status: dict) -> tuple[tuple[str, ...], dict | None]:
    """With enable_cdi on a containerd that knows CDI (1.7, 2.x; its setting on or off, as it runs): the
    device `<kind>=all` of the spec, and the edits asking for it should bring (runbook_lib/cdi/edits.py). A
    containerd that runs with CDI off ignores the request: the probe then shows the edits missing."""
    if not run.p.enable_cdi or smoke_node.cdi_enabled(status) is None:
        return (), None
    try:
        spec = safe_load(run.read_text(run.p.cdi_spec) or "")
    except Exception:  # noqa: BLE001 - step 6 judges the spec
        return (), None
    kind = spec.get("kind") if isinstance(spec, dict) else None
    if not isinstance(kind, str):
        return (), None
    return (f"{kind}={CDI_DEVICE}",), cdi_edits.expected_edits(spec, CDI_DEVICE)


def _node(run):
    p, socket = run.p, endpoint(run)
    client, status = smoke_node.reach(socket, p.smoke_timeout)
    if client is None:
        return smoke_facts.Smoke(smoke_facts.NODE, {"mode": "node", "endpoint": socket, "left": []}).fail(
            "pod.node.unreachable", endpoint=socket, said=status)
    runtimes = smoke_node.running_runtimes(status)
    if p.runtime_name not in runtimes and _pending_restart(run):
        client.close()
        return _said("pod.pending_restart", handler=p.runtime_name, runtimes=", ".join(sorted(runtimes)) or "-",
                      restart="-p restart_containerd True", check="-p mode check -p smoke node")
    devices, edits = _cdi_request(run, status)
    return smoke_node.run(client=client, status=status, socket=socket, handler=p.runtime_name, image=p.smoke_image,
                          command=p.smoke_command, pull=p.smoke_pull, timeout=p.smoke_timeout,
                          cdi_devices=devices, cdi_edits=edits, cdi_spec=p.cdi_spec, root=run.target.root)


def attempt(run):
    """Start the pod (once per run): a Smoke reading of what it did, or the reason it was not tried (a Msg)."""
    if skipped(run) is not None and ID not in run.readings:
        return None
    if ID not in run.readings:
        run.readings[ID] = _sandbox(run) if run.p.smoke == "sandbox" else _node(run)
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


def _smoke(run):
    reading = run.readings.get(ID)
    return reading if isinstance(reading, smoke_facts.Smoke) else None


def verdict(run) -> list[Problem]:
    reading = attempt(run)
    if not isinstance(reading, smoke_facts.Smoke):
        return []
    return [_earlier(run, found) for found in smoke_facts.judge(reading, run.p)]


def facts(run) -> dict:
    """What the pod did, for the check cell's assertions ({} when the step did not run a pod)."""
    reading = _smoke(run)
    return dict(reading.facts) if reading is not None else {}


def message(run) -> Msg | None:
    reading = _smoke(run)
    if reading is None or smoke_facts.judge(reading, run.p):
        return None
    f = reading.facts
    if reading.mode == smoke_facts.SANDBOX:
        flag = smoke_facts.flag_words(f["systemd_cgroup_flag"])
        return words("pod.passed_sandbox", sandbox=f["sandbox_id"][:13], handler=f["handler"], binary=f["binary"],
                     flag=flag, default=f["default_runtime"])[0]
    return words("pod.passed_node", sandbox=f["sandbox_id"][:13], handler=f["handler"], command=f["command"],
                 count=len(f["gpu_lines"]))[0]


def evidence(run) -> dict[str, str]:
    """The handler, the sandbox id, the binary that ran and the container's output, as a person reads them."""
    reading = _smoke(run)
    return {f"smoke {reading.mode}": "\n".join(lines(reading.facts))} if reading is not None else {}


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
