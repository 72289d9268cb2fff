"""What a pod run of the pod step may leave on this machine, looked for independently of the product's own
cleanup report: processes, mounts, cgroups and temp folders named for it (`runbook-smoke-`)."""
from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest

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
        group = next((line.split(":", 2)[-1] for line in cgroups.splitlines() if f"/{MARK}" in line), "")
        if MARK in cmdline or group:  # a pod's process sits in a cgroup named for the run
            found.append(f"process {entry.name}: {cmdline[:120]}" + (f" (cgroup {group})" if group else ""))
    found += [f"mount {line.split()[4]}" for line in Path("/proc/self/mountinfo").read_text().splitlines() if MARK in line]
    for line in Path("/proc/self/mounts").read_text().splitlines():
        _, where, fstype, *_ = line.split()
        if fstype in ("cgroup", "cgroup2"):
            found += [f"cgroup {p}" for p in Path(where).glob(f"{MARK}*")]
    found += [f"temp folder {p}" for p in Path(tempfile.gettempdir()).glob(f"{MARK}*")]
    return found


def traces_of(folder: str, pid: int) -> list[str]:
    """The traces that are one test's own: under the temporary folder it gave the pod step, or in a cgroup named
    for its process (`runbook-smoke-<pid>-`). A pod another process runs at the same time (make mutate's two
    workers) or left behind when it was killed is not this test's to report, nor a reason for it to fail."""
    own = (str(folder), f"{MARK}{pid}-")
    return [t for t in traces() if any(o in t for o in own)]


@contextmanager
def leaves_nothing():
    """A private temporary folder for the pod runs inside (this process's and, through TMPDIR, the kernels' it
    starts): yields it; at the end, the traces that are the runs' own (traces_of) must be none. Traces of any
    other process on the machine (an unrelated containerd, make mutate's workers) are not the test's to judge.
    A fixture using it asks for tmp_path first: pytest makes its base folder at the first tmp_path of the
    session, which must not land in the private folder."""
    private = tempfile.mkdtemp(prefix="pod-test-")
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(tempfile, "tempdir", private)
            patch.setenv("TMPDIR", private)
            yield private
            left = traces_of(private, os.getpid())
        assert left == [], left  # no containerd, shim, mount, cgroup or temp folder of the pod left behind
    finally:
        shutil.rmtree(private, ignore_errors=True)
