"""`smoke node`: a pod through the handler on the node's running containerd, over its CRI socket.

What the GPU Operator's validator and `kubectl run --overrides '{"spec":{"runtimeClassName":"nvidia"}}' ...
nvidia-smi` do, without Kubernetes: a pod sandbox with `runtime_handler = runtime_name`, one container from
`smoke_image` (already on the node: pulled only with `smoke_pull`) running `smoke_command`, its output read
from the container's log. The pod and the container are removed in a `finally`, also after a failure, the
deadline or an interrupt; the pod's cgroups are named for this run and removed by name.
"""
from __future__ import annotations

import json
import shlex
import shutil
import tempfile
import time
import uuid
from pathlib import Path

from runbook_lib.containerd.smoke import cdi_probe
from runbook_lib.containerd.smoke import cleanup as pod_cleanup
from runbook_lib.containerd.distro.detect import K0S, K3S, MICROK8S, PLAIN, RKE2
from runbook_lib.containerd.smoke.facts import NODE, Smoke, classify_refusal, gpu_lines
from runbook_lib.findings.problem import Problem

# each distribution's containerd CRI socket (RKE2 runs its containerd on k3s's socket path)
ENDPOINTS = {PLAIN: "/run/containerd/containerd.sock", K3S: "/run/k3s/containerd/containerd.sock",
             RKE2: "/run/k3s/containerd/containerd.sock", MICROK8S: "/var/snap/microk8s/common/run/containerd.sock",
             K0S: "/run/k0s/containerd.sock"}
# what the CUDA images set: every GPU, and the driver's utilities (nvidia-smi) mounted in by the runtime
GPU_ENV = {"NVIDIA_VISIBLE_DEVICES": "all", "NVIDIA_DRIVER_CAPABILITIES": "compute,utility"}


def endpoint(cri_endpoint: str, distro: str | None) -> str:
    return (cri_endpoint or ENDPOINTS.get(distro or PLAIN, ENDPOINTS[PLAIN])).removeprefix("unix://")


def import_command(socket: str) -> str:
    return f"ctr --address {socket} -n k8s.io images import cuda.tar"


def node_view(path: Path, root: Path) -> str:
    """How the node's containerd names a path of ours: the same, unless the runbook sees the node's file system
    at `root` (a DaemonSet's /host), where /host/tmp/x is the node's /tmp/x."""
    return "/" + str(path.relative_to(root)) if root != Path("/") and path.is_relative_to(root) else str(path)


def scratch_parent(socket: str, root: Path) -> str | None:
    """Where the container's log folder goes: in the node's /tmp as the runbook sees it (the socket under `root`
    means the node's file system is mounted there), else this machine's temp folder."""
    return str(root / "tmp") if root != Path("/") and Path(socket).is_relative_to(root) else None


def running_runtimes(status: dict) -> dict:
    """The runtimes the running CRI plugin registered (Status, verbose: its config as JSON)."""
    try:
        config = json.loads(status.get("config", "{}"))
    except ValueError:
        return {}
    runtimes = (config.get("containerd") or {}).get("runtimes") or {}
    return runtimes if isinstance(runtimes, dict) else {}


def cdi_enabled(status: dict) -> bool | None:
    """Whether the running CRI plugin has CDI on: its enable_cdi (1.7 to 2.3); true when it only reports the
    folders it scans (2.4 dropped the setting: CDI is always on); None when it knows no CDI (1.6)."""
    try:
        config = json.loads(status.get("config", "{}"))
    except ValueError:
        return None
    value = config.get("enableCDI")
    if isinstance(value, bool):
        return value
    return True if isinstance(config.get("cdiSpecDirs"), list) else None


def _log_output(path: Path) -> str:
    """The container's output from its CRI log (`<time> <stream> <P|F> <text>` per line)."""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return "\n".join(line.split(" ", 3)[3] if line.count(" ") >= 3 else line for line in lines)


def reach(socket: str, timeout: float):
    """(client, status) or (None, containerd's words) for the node's CRI socket."""
    from runbook_lib.containerd import cri  # grpc and protobuf: only when a pod is started
    client = cri.RuntimeService(socket, timeout=min(timeout, 20))
    try:
        return client, client.status()
    except cri.RpcError as exc:
        client.close()
        return None, cri.said(exc)


def run(*, client, status: dict, socket: str, handler: str, image: str, command: str, pull: bool, timeout: float,
        cdi_devices: tuple[str, ...] = (), cdi_edits: dict | None = None, cdi_spec: str = "",
        root: Path = Path("/")) -> Smoke:
    """The pod, `smoke_command`'s container and, with CDI devices and the edits their spec makes
    (runbook_lib/cdi/edits.py), a probe container that shows which of those edits arrived."""
    from runbook_lib.containerd import cri  # grpc and protobuf: only when a pod is started
    argv = shlex.split(command)
    runtimes = running_runtimes(status)
    smoke = Smoke(NODE, {"mode": NODE, "handler": handler, "endpoint": socket, "image": image, "command": command,
                         "runtimes": sorted(runtimes), "sandbox_id": None, "container_id": None, "exit_code": None,
                         "output": "", "gpu_lines": [], "cdi_devices": list(cdi_devices), "cdi_enabled": cdi_enabled(status),
                         "cdi_spec": cdi_spec,
                         "cdi_probe": None, "cdi_missing": [], "left": []})
    facts, end = smoke.facts, time.monotonic() + timeout
    name = pod_cleanup.new_parent_name()
    options = (runtimes.get(handler) or {}).get("options") or {}
    systemd = isinstance(options, dict) and options.get("SystemdCgroup") is True
    logs = Path(tempfile.mkdtemp(prefix="runbook-smoke-", dir=scratch_parent(socket, root)))
    pod = cri.RuntimeService.pod_config(f"runbook-smoke-{uuid.uuid4().hex[:8]}", node_view(logs, root),
                                        pod_cleanup.cgroup_parent(name, systemd=systemd))
    stage, import_cmd = "ImageStatus", import_command(node_view(Path(socket), root))
    containers: list[str] = []

    def left() -> float:
        remaining = end - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        client.timeout = remaining
        return remaining

    def container(label: str, container_argv: list[str], env: dict[str, str]) -> tuple[int, str] | Problem:
        """Create, start and wait for one container of the pod: (exit code, output), or containerd's refusal."""
        nonlocal stage
        for stage in ("CreateContainer", "StartContainer"):
            left()
            try:
                if stage == "CreateContainer":
                    containers.append(client.create_container(
                        facts["sandbox_id"], pod, name=label, image=image, command=container_argv, env=env,
                        log_path=f"{label}.log", cdi_devices=cdi_devices))
                else:
                    client.start_container(containers[-1])
            except cri.RpcError as exc:
                if exc.code() == cri.grpc.StatusCode.DEADLINE_EXCEEDED:
                    raise TimeoutError from exc
                said = cri.said(exc)
                if cdi_devices and "CDI support is explicitly disabled" in said:  # 2.3 refuses the request (2.2 ignores it)
                    return Problem.of("pod.node.cdi_disabled", devices=", ".join(cdi_devices), said=said)
                if cdi_devices and "unresolvable CDI devices" in said:  # no spec it reads has the device
                    return Problem.of("pod.node.cdi_unresolvable", devices=", ".join(cdi_devices), said=said,
                                      spec=cdi_spec or "-")
                return Problem.of("pod.node.container_failed", stage=stage, said=said)
        stage = "ContainerStatus"
        pause = 0.01  # a short command has exited after a few ms; a long one is asked at most every 0.2 s
        while True:
            left()
            state = client.container_status(containers[-1])
            if state.state == cri.EXITED:
                return state.exit_code, _log_output(logs / f"{label}.log")
            time.sleep(pause)
            pause = min(pause * 2, 0.2)

    try:
        left()
        if not client.image_present(image):
            if not pull:
                return smoke.fail("pod.node.image_missing", image=image, import_cmd=import_cmd)
            stage = "PullImage"
            try:
                client.pull_image(image, pod)
            except cri.RpcError as exc:
                return smoke.fail("pod.node.pull_failed", image=image, said=cri.said(exc), import_cmd=import_cmd)
        stage = "RunPodSandbox"
        left()
        try:
            facts["sandbox_id"] = client.run_pod_sandbox(pod, handler)
        except cri.RpcError as exc:
            if exc.code() == cri.grpc.StatusCode.DEADLINE_EXCEEDED:
                raise TimeoutError from exc
            said = cri.said(exc)
            if "no runtime for" in said:
                return smoke.fail("pod.node.handler_missing", handler=handler, runtimes=", ".join(sorted(runtimes)) or "-",
                                  said=said)
            smoke.problems.append(classify_refusal(said, handler=handler, runtimes=sorted(runtimes), runtime=handler,
                                                   runtime_type=(runtimes.get(handler) or {}).get("runtimeType")))
            return smoke
        ran = container("smoke", argv, GPU_ENV)
        if isinstance(ran, Problem):
            smoke.problems.append(ran)
            return smoke
        facts["container_id"] = containers[0]
        facts["exit_code"], facts["output"] = ran
        facts["gpu_lines"] = gpu_lines(facts["output"])
        if cdi_devices and cdi_edits is not None:
            probed = container("cdi-probe", cdi_probe.probe_command(cdi_edits), {})
            if isinstance(probed, Problem):
                smoke.problems.append(probed)
                return smoke
            seen = cdi_probe.observed(probed[1])
            facts["cdi_probe"] = {"exit_code": probed[0], "output": probed[1], "expected": cdi_edits,
                                  "arrived": cdi_probe.arrived(cdi_edits, seen)}
            facts["cdi_missing"] = cdi_probe.missing(cdi_edits, seen)
    except TimeoutError:
        smoke.fail("pod.timeout", seconds=f"{timeout:g}", stage=stage)
    finally:
        facts["left"] = _clean(client, facts, containers, name, logs)
    return smoke


def _clean(client, facts: dict, containers: list[str], name: str, logs: Path) -> list[str]:
    from runbook_lib.containerd import cri  # grpc and protobuf: only when a pod is started
    client.timeout = 20
    left = []
    for container_id in containers:
        for what, call in (("StopContainer", client.stop_container), ("RemoveContainer", client.remove_container)):
            try:
                call(container_id)
            except cri.RpcError as exc:
                left.append(f"container {container_id[:13]} ({what}: {cri.said(exc)})")
                break
    if facts.get("sandbox_id"):
        for what, call in (("StopPodSandbox", client.stop_pod_sandbox), ("RemovePodSandbox", client.remove_pod_sandbox)):
            try:
                call(facts["sandbox_id"])
            except cri.RpcError as exc:
                left.append(f"pod {facts['sandbox_id'][:13]} ({what}: {cri.said(exc)})")
    client.close()
    left += pod_cleanup.remove_cgroups(name)
    shutil.rmtree(logs, ignore_errors=True)
    return left
