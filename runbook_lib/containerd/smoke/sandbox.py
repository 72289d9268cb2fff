"""`smoke sandbox`: a pod through the handler on a throw-away containerd, no GPU needed.

The config containerd would read (the run's, or in check mode the student's; its imports merged) is copied
into a temp folder, every path containerd writes moved there (throwaway.py), and the BinaryName of the
handler's runtime replaced by a stand-in: a script that records how containerd's shim called it, then hands
over to runc. The default runtime gets a stand-in of its own, so that a pod without a RuntimeClass is seen not
to go through the nvidia binary. The pause image is built here from the static busybox (oci_layout.py) and
imported: nothing is pulled. Nothing is written under the root.

Everything is undone in a `finally`, also after a failure, the deadline (`smoke_timeout`) or an interrupt:
the pods are stopped and removed, the daemon and its shims stopped by PID, its mounts (in its own mount
namespace) die with it, the pods' cgroups are removed by name, the temp folder is deleted.
"""
from __future__ import annotations

import copy
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

from runbook_lib.containerd import oci_layout
from runbook_lib.containerd.smoke import cleanup as pod_cleanup
from runbook_lib.containerd.edit import default_runtime_name
from runbook_lib.containerd.smoke.facts import SANDBOX, Smoke, classify_refusal
from runbook_lib.containerd.tables import get_in
from runbook_lib.containerd.throwaway import PAUSE_IMAGE, Daemon, DaemonFailed, sandbox_config
from runbook_lib.containerd.versions import runtimes_path

STAND_IN = """#!/bin/sh
# stand-in for {binary}: record how containerd's shim called it, then hand over to runc
printf '%s\\n' "$*" >> {record}
{strip}exec {runc} "$@"
"""
# a machine without systemd (a CI container) cannot run runc's systemd driver: the flag is recorded, then
# left out, and runc uses cgroupfs (the pod's cgroup path then holds the slice name, removed all the same)
STRIP_SYSTEMD = 'for a; do shift; [ "$a" = --systemd-cgroup ] || set -- "$@" "$a"; done\n'
PACKAGES = "containerd runc busybox-static util-linux"


def systemd_running() -> bool:
    return Path("/run/systemd/system").is_dir()


def missing_programs(containerd: str | None) -> list[str]:
    missing = [] if os.geteuid() == 0 else ["root"]
    missing += [name for name in ("unshare", "ctr", "runc") if shutil.which(name) is None
                and shutil.which(name, path="/usr/local/sbin:/usr/sbin:/sbin") is None]
    if not containerd:
        missing.append("containerd")
    if oci_layout.busybox_static() is None:
        missing.append("busybox-static")
    return missing


def _which(name: str) -> str:
    return shutil.which(name) or shutil.which(name, path="/usr/local/sbin:/usr/sbin:/sbin") or name


def _stand_in(folder: Path, binary: str, record: Path, runc: str) -> Path:
    path = folder / (Path(binary).name or "runtime")
    if path.exists():  # the default runtime's binary has the same name: keep the two apart
        path = folder / f"default-{path.name}"
    path.write_text(STAND_IN.format(binary=binary, record=record, runc=runc,
                                    strip="" if systemd_running() else STRIP_SYSTEMD))
    path.chmod(0o755)
    return path


def _options(runtime) -> dict | None:
    if not isinstance(runtime, dict):
        return None
    options = runtime.setdefault("options", {})
    return options if isinstance(options, dict) else None


def _daemon_words(log: str) -> str:
    """containerd's own error lines from its log, without the timestamps."""
    said = []
    for line in log.splitlines():
        # the CRI plugin's own refusal is logged as a plugin that failed to load, not as an error
        if "level=error" in line or "level=fatal" in line or "failed to load plugin io.containerd.grpc.v1.cri" in line:
            parts = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', line))
            text = parts.get("msg", line)
            if parts.get("error"):
                text += f": {parts['error']}"
            said.append(text.replace('\\"', '"'))
    if said:
        return " / ".join(dict.fromkeys(said))
    lines = log.strip().splitlines()
    return lines[-1] if lines else "-"


def _calls(record: Path) -> list[str]:
    return record.read_text().splitlines() if record.exists() else []


def _ran(calls: list[str], sandbox_id: str | None) -> list[str]:
    return [c for c in calls if sandbox_id and c.endswith((f" start {sandbox_id}", f" {sandbox_id}"))
            and (" create " in c or " start " in c)]


class _Deadline:
    def __init__(self, seconds: float):
        self.seconds, self.end = seconds, time.monotonic() + seconds

    def left(self) -> float:
        remaining = self.end - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        return remaining


def run(*, data: dict, version: int, handler: str, runtime: str, containerd: str | None, timeout: float,
        temp_parent: str | None = None) -> Smoke:
    from runbook_lib.containerd import cri  # grpc: imported only when a pod starts
    smoke = Smoke(SANDBOX, {"mode": SANDBOX, "handler": handler, "runtime": runtime, "containerd": containerd})
    missing = missing_programs(containerd)
    if missing:
        return smoke.fail("pod.cannot_run", missing=", ".join(missing), packages=PACKAGES)
    config = copy.deepcopy(data)
    runtimes = get_in(config, runtimes_path(version))
    runtimes = runtimes if isinstance(runtimes, dict) else {}
    default = default_runtime_name(config, version)
    target, plain = runtimes.get(handler), runtimes.get(default)
    target_options, plain_options = _options(target), _options(plain) if default != handler else None
    binary = target_options.get("BinaryName") if target_options is not None else None
    facts = smoke.facts
    facts.update(binary=binary, default_runtime=default, sandbox_id=None, default_sandbox_id=None, calls=[],
                 binary_called=False, systemd_cgroup_flag=False, default_ran_it=False, left=[],
                 systemd_here=systemd_running())
    if target_options is not None and binary is None:
        smoke.fail("pod.no_binary_name", handler=handler, binary="/usr/bin/nvidia-container-runtime")
    base = Path(tempfile.mkdtemp(prefix="runbook-smoke-", dir=temp_parent))
    (base / "bin").mkdir()
    runc, record, plain_record = _which("runc"), base / "binary.calls", base / "default.calls"
    if isinstance(binary, str) and binary:
        facts["stand_in"] = str(_stand_in(base / "bin", binary, record, runc))
        target_options["BinaryName"] = facts["stand_in"]
    if plain_options is not None:
        plain_options["BinaryName"] = str(_stand_in(base / "bin", plain_options.get("BinaryName") or "runc",
                                                     plain_record, runc))
    cgroup_name = pod_cleanup.new_parent_name()
    deadline, daemon, client, pods, stage = _Deadline(timeout), None, None, [], "containerd"
    try:
        daemon = Daemon(containerd, sandbox_config(config, version, base), base)
        daemon.wait_ready(min(30.0, deadline.left()))
        stage = "image"
        image = oci_layout.build_image_tar(base / "pause.tar", PAUSE_IMAGE, ["/bin/busybox", "sleep", "3600"],
                                           oci_layout.busybox_static())
        imported = daemon.ctr("images", "import", "--snapshotter", "native", str(image), timeout=deadline.left())
        if imported.returncode != 0:
            return smoke.fail("pod.daemon_failed", what="ctr images import", said=imported.stderr.strip())
        client = cri.RuntimeService(str(daemon.socket), timeout=deadline.left())
        try:
            client.status()
        except cri.RpcError as exc:  # the CRI plugin did not load: containerd's log says why
            return smoke.fail("pod.daemon_failed", what=cri.said(exc), said=_daemon_words(daemon.said()))
        for pod, pod_handler in (("gpu", handler), ("plain", "")):
            stage = f"RunPodSandbox {pod_handler or '(default)'}"
            options = target_options if pod_handler else plain_options
            systemd = isinstance(options, dict) and options.get("SystemdCgroup") is True
            config_msg = cri.RuntimeService.pod_config(
                f"runbook-{pod}", str(base / "logs"), pod_cleanup.cgroup_parent(cgroup_name, systemd=systemd))
            client.timeout = deadline.left()
            try:
                sandbox_id = client.run_pod_sandbox(config_msg, pod_handler)
            except cri.RpcError as exc:
                if exc.code() == cri.grpc.StatusCode.DEADLINE_EXCEEDED:
                    raise TimeoutError from exc
                if pod_handler:
                    smoke.problems.append(classify_refusal(
                        cri.said(exc), handler=handler, runtimes=sorted(runtimes), runtime=runtime,
                        runtime_type=target.get("runtime_type") if isinstance(target, dict) else None))
                break  # the default runtime's pod is evidence only: its failure is the default's business
            pods.append(sandbox_id)
            client.stop_pod_sandbox(sandbox_id)
            if pod_handler:
                facts["sandbox_id"] = sandbox_id
                ran = _ran(_calls(record), sandbox_id)
                facts["binary_called"] = bool(ran)
                facts["systemd_cgroup_flag"] = bool(ran) and all(
                    "--systemd-cgroup" in c.split(" create ")[0].split(" start ")[0] for c in ran)
            else:
                facts["default_sandbox_id"] = sandbox_id
                facts["default_ran_it"] = bool(_ran(_calls(record), sandbox_id))
                facts["default_calls"] = _ran(_calls(plain_record), sandbox_id)
        facts["calls"] = [c.replace(str(base), "<tmp>") for c in _calls(record)]
        facts["default_calls"] = [c.replace(str(base), "<tmp>") for c in facts.get("default_calls", [])]
    except TimeoutError:
        smoke.fail("pod.timeout", seconds=f"{deadline.seconds:g}", stage=stage)
    except cri.RpcError as exc:  # a call after the pod started (stopping it) failed: containerd's words, then cleanup
        if exc.code() == cri.grpc.StatusCode.DEADLINE_EXCEEDED:
            smoke.fail("pod.timeout", seconds=f"{deadline.seconds:g}", stage=stage)
        else:
            smoke.fail("pod.rejected.other", handler=handler, said=cri.said(exc))
    except DaemonFailed as exc:
        smoke.fail("pod.daemon_failed", what=exc.what, said=_daemon_words(exc.log))
    finally:
        facts["left"] = _clean(daemon, client, pods, cgroup_name, base)
    return smoke


def _clean(daemon, client, pods: list[str], cgroup_name: str, base: Path) -> list[str]:
    """Undo everything the run made; what could not be undone is the step's finding."""
    if client is not None:
        client.timeout = 20
        for sandbox_id in pods:
            try:
                client.stop_pod_sandbox(sandbox_id)
                client.remove_pod_sandbox(sandbox_id)
            except Exception:  # noqa: BLE001 - the daemon is stopped next; what stays is reported below
                pass
        client.close()
    left = []
    if daemon is not None:
        daemon.stop()
        left += daemon.leftovers()
    left += pod_cleanup.remove_cgroups(cgroup_name)
    if not left:
        shutil.rmtree(base, ignore_errors=True)
    else:
        left.append(f"temp folder {base}")
    return left
