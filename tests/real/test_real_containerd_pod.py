"""A pod sandbox started through the registered handler: containerd really runs the configured BinaryName.

The sandboxed daemon (containerd_daemon.py) gets the written config with `BinaryName` pointing at a stand-in:
a small script that records how containerd's shim calls it, then either hands over to the real runc (the pod
runs) or refuses with a marker. The pod uses the host's network namespace, so no CNI is needed; its pause
image is built here (oci_image.py) and imported with `ctr images import`, since no registry is reachable.

It also proves the claim of issue 3 / tests/fixtures/broken/README.md that `SystemdCgroup = "true"` (a
string) is accepted and kept until a pod starts, and that the pod then fails, and that the runbook's verdict
quotes containerd's own error.

Nothing is left on the host: the sandbox is stopped and removed, the daemon and its shims are stopped by PID,
and the pod's cgroups live under a parent named for this test, removed (and checked) at the end.
"""
import os
import uuid
from pathlib import Path

import pytest
import tomlkit

import realenv
from paths import BROKEN, GOOD_CONFIG

pytestmark = pytest.mark.real
grpc = pytest.importorskip("grpc")
CRI = "io.containerd.grpc.v1.cri"
PAUSE = "localhost/runbook/pause:test"  # the sandbox_image containerd_daemon.sandbox_config sets

STAND_IN = """#!/bin/sh
# stand-in for the nvidia runtime: record how we were called, then {what}
printf '%s\\n' "$*" >> {record}
{tail}
"""
HAND_OVER = 'exec {runc} "$@"'
REFUSE = 'echo "runbook-stand-in: refused on purpose" >&2\nexit 42'


def cgroup_mounts() -> list[Path]:
    mounts = []
    for line in Path("/proc/self/mounts").read_text().splitlines():
        _, where, fstype, *_ = line.split()
        if fstype in ("cgroup", "cgroup2"):
            mounts.append(Path(where))
    return mounts


def processes_in(cgroup: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if f"{cgroup}/" in (entry / "cgroup").read_text():
                    pids.append(int(entry.name))
            except OSError:
                pass
    return pids


class Pods:
    """A sandboxed daemon with the pause image imported, a stand-in at BinaryName, and cleanup."""

    def __init__(self, base: Path, containerd: str, runc: str):
        self.base, self.containerd, self.runc = base, containerd, runc
        self.record = base / "stand-in.argv"
        self.stand_in = base / "bin" / "nvidia-stand-in"
        self.cgroup = f"/runbook-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.daemon = self.client = None
        self.sandboxes: list[str] = []

    def config(self, source: Path, *, systemd_cgroup=False) -> str:
        """The source config with BinaryName at the stand-in; SystemdCgroup for both runtimes (False: this
        machine has no systemd; None: leave the file's value, as for the string fixture)."""
        doc = tomlkit.parse(source.read_text())
        runtimes = doc["plugins"][CRI]["containerd"]["runtimes"]
        runtimes["nvidia"]["options"]["BinaryName"] = str(self.stand_in)
        if systemd_cgroup is not None:
            for name in ("nvidia", "runc"):
                runtimes[name]["options"]["SystemdCgroup"] = systemd_cgroup
        return tomlkit.dumps(doc)

    def start(self, config_text: str, *, hand_over: bool):
        from containerd_daemon import Daemon
        from cri_client import RuntimeService
        from oci_image import build_image_tar
        self.stand_in.parent.mkdir()
        tail = HAND_OVER.format(runc=self.runc) if hand_over else REFUSE
        self.stand_in.write_text(STAND_IN.format(record=self.record, tail=tail,
                                                 what="hand over to runc" if hand_over else "refuse"))
        self.stand_in.chmod(0o755)
        self.daemon = Daemon(self.containerd, config_text, self.base)
        self.daemon.wait_ready()
        image = build_image_tar(self.base / "pause.tar", PAUSE, ["/bin/busybox", "sleep", "3600"])
        done = self.daemon.ctr("images", "import", "--snapshotter", "native", str(image))
        assert done.returncode == 0, done.stderr
        self.client = RuntimeService(str(self.daemon.socket))
        return self

    def run(self, name: str, handler: str) -> str:
        sandbox = self.client.run_pod_sandbox(name, handler, str(self.base / "logs"), cgroup_parent=self.cgroup)
        self.sandboxes.append(sandbox)
        return sandbox

    def calls(self) -> list[str]:
        return self.record.read_text().splitlines() if self.record.exists() else []

    def close(self) -> list[str]:
        """Stop everything; return whatever is left outside the temp folder."""
        for sandbox in self.sandboxes:
            try:
                self.client.stop_pod_sandbox(sandbox)
                self.client.remove_pod_sandbox(sandbox)
            except grpc.RpcError:
                pass  # the daemon is stopped next, and what stays is reported below
        if self.client:
            self.client.close()
        left = []
        if self.daemon:
            self.daemon.stop()
            left += self.daemon.leftovers()
        left += [f"pid {pid} in {self.cgroup}" for pid in processes_in(self.cgroup)]
        for mount in cgroup_mounts():
            folder = mount / self.cgroup.lstrip("/")
            if folder.is_dir():
                try:
                    folder.rmdir()  # the parent runc made for the pods; their own cgroups went with them
                except OSError as exc:
                    left.append(f"{folder}: {exc}")
        return left


@pytest.fixture
def pods(tmp_path):
    realenv.need_root()
    realenv.need_program("unshare")
    realenv.need_program("ctr")
    made = Pods(tmp_path, realenv.need_program("containerd"), realenv.need_program("runc"))
    yield made
    assert made.close() == []


def test_the_handler_runs_the_configured_binary_and_the_pod_runs(pods):
    pods.start(pods.config(GOOD_CONFIG), hand_over=True)
    sandbox = pods.run("gpu-pod", "nvidia")
    calls = pods.calls()
    # the shim called our BinaryName to create and start exactly this sandbox
    assert any(c.endswith(f" create --bundle {pods.base}/state/io.containerd.runtime.v2.task/k8s.io/{sandbox} "
                          f"--pid-file {pods.base}/state/io.containerd.runtime.v2.task/k8s.io/{sandbox}/init.pid {sandbox}")
               for c in calls), calls
    assert any(c.endswith(f" start {sandbox}") for c in calls), calls
    assert all("--systemd-cgroup" not in c for c in calls)  # SystemdCgroup = false reached it as no flag
    pods.client.stop_pod_sandbox(sandbox)
    assert any(c.endswith(f" kill {sandbox} 9") for c in pods.calls())  # stopping goes through it too


def test_the_default_handler_does_not_run_it(pods):
    pods.start(pods.config(GOOD_CONFIG), hand_over=True)
    nvidia = pods.run("gpu-pod", "nvidia")
    plain = pods.run("plain-pod", "")  # no RuntimeClass: the default runtime, runc
    calls = pods.calls()
    assert any(nvidia in c for c in calls) and not any(plain in c for c in calls), calls


def test_systemd_cgroup_true_reaches_the_binary_as_its_flag(pods):
    # The stand-in refuses (this machine has no systemd to run such a pod); what matters is how it was called.
    pods.start(pods.config(GOOD_CONFIG, systemd_cgroup=True), hand_over=False)
    with pytest.raises(grpc.RpcError) as failed:
        pods.run("gpu-pod", "nvidia")
    assert "exit status 42" in failed.value.details(), failed.value.details()
    create = [c for c in pods.calls() if " create " in c]
    assert create and all(c.split(" create ")[0].endswith("--systemd-cgroup") for c in create), pods.calls()


def test_string_systemd_cgroup_is_kept_until_a_pod_starts_then_fails(pods):
    """The claim of tests/fixtures/broken/README.md, issue 3 and step 9's verdict, with containerd's words."""
    import json

    from runbook_lib.containerd import ask
    from runbook_lib.containerd.verify import containerd_reading
    from runbook_lib.engine.params import validate

    config_text = pods.config(BROKEN / "systemdcgroup-string.toml", systemd_cgroup=None)
    pods.start(config_text, hand_over=True)
    # accepted: the daemon runs and registers the handler with the string
    registered = json.loads(pods.client.status()["config"])["containerd"]["runtimes"]["nvidia"]
    assert registered["options"]["SystemdCgroup"] == "true"
    # the pod fails, before the runtime binary is ever called
    with pytest.raises(grpc.RpcError) as failed:
        pods.run("gpu-pod", "nvidia")
    said = failed.value.details()
    assert "failed to generate runtime options" in said and "Can't convert true(string) to bool" in said, said
    assert pods.calls() == []
    # step 9's verdict on the same file quotes what containerd says when the pod starts
    reading = containerd_reading(pods.containerd, pods.daemon.config, Path("/"), "nvidia")
    params = validate(root="/", mode="check", binary_name=str(pods.stand_in), systemd_cgroup=True)
    _, problems = ask.compare(reading, params, None, "runc")
    (problem,) = problems
    assert "Can't convert true(string) to bool" in problem.what.en and "Can't convert true(string) to bool" in problem.what.ko
