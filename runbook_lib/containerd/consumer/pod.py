"""The pod step as containerd has it (moved from runbook_lib/steps/pod.py): a pod through the handler, as the GPU
Operator's validator proves a node (`smoke`).

- sandbox: a throw-away containerd on a copy of the config containerd would read (runbook_lib/containerd/
  smoke/sandbox.py), the pod started through the RuntimeClass's handler, the configured binary a recording
  stand-in; nothing is written under the root;
- node: the node's running containerd over its CRI socket (smoke/node.py), a container running
  `smoke_command` from `smoke_image`; only once the written config is in effect.

Its facts are judged by runbook_lib/containerd/smoke/facts.py's ``judge``, which the step's check cell states as
its assertions.
"""

from __future__ import annotations

import shutil

from runbook_lib.containerd.smoke import facts as smoke_facts
from runbook_lib.findings.errors import RunbookError
from runbook_lib.findings.problem import Problem, words
from runbook_lib.findings.messages import Msg
from runbook_lib.findings.catalog import say
from runbook_lib.fs.plan import Plan
from runbook_lib.containerd.smoke import node as smoke_node
from runbook_lib.fs.yamldoc import safe_load
from runbook_lib.containerd.smoke.show import lines

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
    if run.p.smoke == "node" and endpoint(run) is None:
        return _said("pod.no_endpoint", root=run.target.root)
    return None


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
    from runbook_lib.containerd.smoke import sandbox as smoke_sandbox  # grpc: only when a pod is started

    try:
        eff = run.effective()
    except RunbookError as exc:
        return _said("pod.blocked", reason=exc.what)
    handler, unread = _handler(run)
    if handler is None:
        return _said("pod.blocked", reason=say("pod.handler_of", unread=unread))
    return smoke_sandbox.run(data=eff.data, version=eff.version, handler=handler, runtime=run.p.runtime_name,
                             containerd=containerd_binary(run), timeout=run.p.smoke_timeout)


def _cdi_request(run, status: dict, expected_edits) -> tuple[tuple[str, ...], dict | None]:
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
    return (f"{kind}={CDI_DEVICE}",), expected_edits(spec, CDI_DEVICE)


def _node(run, pending_restart, expected_edits):
    p, socket = run.p, endpoint(run)
    client, status = smoke_node.reach(socket, p.smoke_timeout)
    if client is None:
        return smoke_facts.Smoke(smoke_facts.NODE, {"mode": "node", "endpoint": socket, "left": []}).fail(
            "pod.node.unreachable", endpoint=socket, said=status)
    runtimes = smoke_node.running_runtimes(status)
    if p.runtime_name not in runtimes and pending_restart():
        client.close()
        return _said("pod.pending_restart", handler=p.runtime_name, runtimes=", ".join(sorted(runtimes)) or "-",
                      restart="-p restart_containerd True", check="-p mode check -p smoke node")
    devices, edits = _cdi_request(run, status, expected_edits)
    return smoke_node.run(client=client, status=status, socket=socket, handler=p.runtime_name, image=p.smoke_image,
                          command=p.smoke_command, pull=p.smoke_pull, timeout=p.smoke_timeout,
                          cdi_devices=devices, cdi_edits=edits, cdi_spec=p.cdi_spec, root=run.target.root)


def attempt(run, pending_restart, expected_edits):
    """Start the pod: a Smoke, or the reason it was not tried (a Msg). ``expected_edits(spec, device)``: what a
    request for the CDI device should bring (runbook_lib/cdi/edits.py, a layer above this one)."""
    return _sandbox(run) if run.p.smoke == "sandbox" else _node(run, pending_restart, expected_edits)


def problems(run, reading) -> list[Problem]:
    if not isinstance(reading, smoke_facts.Smoke):
        return []
    return smoke_facts.judge(reading, run.p)


def facts(reading) -> dict:
    """What the pod did, for the check cell's assertions ({} when the step did not run a pod)."""
    return dict(reading.facts) if isinstance(reading, smoke_facts.Smoke) else {}


def message(run, reading) -> Msg | None:
    if not isinstance(reading, smoke_facts.Smoke) or smoke_facts.judge(reading, run.p):
        return None
    f = reading.facts
    if reading.mode == smoke_facts.SANDBOX:
        flag = smoke_facts.flag_words(f["systemd_cgroup_flag"])
        return words("pod.passed_sandbox", sandbox=f["sandbox_id"][:13], handler=f["handler"], binary=f["binary"],
                     flag=flag, default=f["default_runtime"])[0]
    return words("pod.passed_node", sandbox=f["sandbox_id"][:13], handler=f["handler"], command=f["command"],
                 count=len(f["gpu_lines"]))[0]


def evidence(reading) -> dict[str, str]:
    """The handler, the sandbox id, the binary that ran and the container's output, as a person reads them."""
    if not isinstance(reading, smoke_facts.Smoke):
        return {}
    return {f"smoke {reading.mode}": "\n".join(lines(reading.facts))}
