"""What a pod run of the pod step may leave on this machine, looked for independently of the product's own
cleanup report: processes, mounts, cgroups and temp folders named for it (`runbook-smoke-`)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

MARK = "runbook-smoke-"


def traces() -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        try:
            cgroups = (entry / "cgroup").read_text()
        except OSError:
            cgroups = ""
        if MARK in cmdline or f"/{MARK}" in cgroups:  # a pod's process sits in a cgroup named for the run
            found.append(f"process {entry.name}: {cmdline[:120]}")
    found += [f"mount {line.split()[4]}" for line in Path("/proc/self/mountinfo").read_text().splitlines() if MARK in line]
    for line in Path("/proc/self/mounts").read_text().splitlines():
        _, where, fstype, *_ = line.split()
        if fstype in ("cgroup", "cgroup2"):
            found += [f"cgroup {p}" for p in Path(where).glob(f"{MARK}*")]
    found += [f"temp folder {p}" for p in Path(tempfile.gettempdir()).glob(f"{MARK}*")]
    return found
