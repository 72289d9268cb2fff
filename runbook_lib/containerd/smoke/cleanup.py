"""What a pod of the pod step leaves in the cgroup hierarchy, found and removed by name.

Every pod the step starts gets a cgroup parent named for this run (`runbook-smoke-<pid>-<hex>`): with the
cgroupfs driver runc creates `/<parent>/<sandbox id>` under every controller and removes only the pod's own
folder; with SystemdCgroup the path is `<parent>.slice:cri-containerd:<id>`, which runc removes itself. What
remains of either form is removed here (empty folders only: a process still in one is reported, not killed).
"""
from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path


def new_parent_name() -> str:
    return f"runbook-smoke-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def cgroup_parent(name: str, *, systemd: bool) -> str:
    """The pod's cgroup_parent as containerd wants it for the runtime's cgroup driver."""
    return f"{name}.slice" if systemd else f"/{name}"


def cgroup_mounts() -> list[Path]:
    mounts = []
    for line in Path("/proc/self/mounts").read_text().splitlines():
        _, where, fstype, *_ = line.split()
        if fstype in ("cgroup", "cgroup2"):
            mounts.append(Path(where))
    return mounts


def _ours(mount: Path, name: str) -> list[Path]:
    try:
        return [entry for entry in mount.iterdir() if entry.is_dir() and entry.name.startswith(name)]
    except OSError:
        return []


def processes_in(name: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if f"/{name}" in (entry / "cgroup").read_text():
                    pids.append(int(entry.name))
            except OSError:
                pass
    return pids


def remove_cgroups(name: str) -> list[str]:
    """Stop the processes left in this run's cgroups, remove every cgroup folder named for it, deepest first;
    return what could not be removed."""
    for pid in processes_in(name):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for _ in range(50):  # a killed process leaves its cgroup once the kernel has reaped it
        if not processes_in(name):
            break
        time.sleep(0.1)
    left = [f"pid {pid} in cgroup {name}" for pid in processes_in(name)]
    for mount in cgroup_mounts():
        for top in _ours(mount, name):
            for folder in sorted((p for p in top.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)) + [top]:
                try:
                    folder.rmdir()
                except OSError as exc:
                    left.append(f"cgroup {folder}: {exc.strerror}")
    return left
