"""Test helpers: where the test data is (tests/fixtures/), running the real notebook, hashing a tree."""

from __future__ import annotations

import hashlib
import os
from contextlib import contextmanager
from pathlib import Path

from runbook_lib.fs.target import Target

REPO = Path(__file__).resolve().parents[1]
TEST_DATA = REPO / "tests" / "fixtures"  # every external file with its source and licence (SOURCE.md)
NOTEBOOK = REPO / "notebooks" / "run.ipynb"
FIXTURES = TEST_DATA / "containerd"
CONFORMANCE = TEST_DATA / "conformance" / "nvidia-ctk"
CDI_SCHEMA = TEST_DATA / "cdi-schema"
LAB_BASE = FIXTURES / "lab-config.toml.base"
COURSE_FIXTURE = "opt/fixtures/gpu-airgap/containerd/config.toml.base"


@contextmanager
def ctrl_c_reaches_children():
    """Popen a command inside this to Ctrl-C it later (os.killpg(pid, SIGINT)), as a terminal does a command it
    started. A shell without job control starts a background job with SIGINT ignored (POSIX: `make test &` in a
    script), every process below inherits that, and Python then installs no KeyboardInterrupt handler: the test's
    Ctrl-C would be lost and the command would run on. While this holds, a child's SIGINT is at its default
    (a handler of this process's own is reset at exec), whatever this process was given."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def run_notebook(root: Path, out: Path, **params):
    """Execute notebooks/run.ipynb with plain papermill, as a user would (in the kernel the notebook names,
    ipykernel's stock python3, on ports of this xdist worker's own: tests/kernel_ports.py); returns the executed
    notebook."""
    from kernel_ports import papermill_execute

    return papermill_execute(str(NOTEBOOK), str(out), parameters={"root": str(root), **params},
                             progress_bar=False, log_output=False)


def step_records(nb) -> dict:
    from runbook_lib.evidence.archive import records
    steps, summary = records(nb)
    if summary is not None:
        return {s["step"]: s for s in summary["steps"]}
    return {s["step"]: s for s in steps}


def plan_diff(nb, step_id: str) -> list[str]:
    """The diff a step's plan view shows, as lines: from its HTML (the one place the notebook keeps the diff;
    the text/plain view and the step's record only count its lines)."""
    import html
    import re

    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and f'rb.plan("{step_id}")' in "".join(cell["source"]):
            for out in cell.get("outputs", []):
                page = "".join((out.get("data") or {}).get("text/html") or "")
                if "<pre" in page:
                    body = page[page.index("<pre"):]
                    return [html.unescape(line) for line in re.sub(r"<br>", "\n", re.sub(r"<(?!br>)[^>]+>", "", body)).split("\n")]
    return []


def tree_state(folder: Path) -> dict[str, tuple]:
    """Every entry under a folder, to prove nothing changed: files as (bytes hash, mode, mtime_ns), links as
    their target, folders as (mode, mtime_ns), special files (FIFO, device, socket) never read."""
    out: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = str(path.relative_to(folder))
            st = path.lstat()
            if path.is_symlink():
                out[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                out[rel] = ("dir", st.st_mode, st.st_mtime_ns)
            elif not path.is_file():
                out[rel] = ("special", st.st_mode, st.st_mtime_ns)
            else:
                out[rel] = ("file", hashlib.sha256(path.read_bytes()).hexdigest(), st.st_mode, st.st_mtime_ns)
    return out


def put_course_fixture(root: Path, content: bytes | None = None) -> Path:
    dest = root / COURSE_FIXTURE
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(content if content is not None else LAB_BASE.read_bytes())
    return dest


def run_numbered(rb, numbers) -> list:
    """Plan every step (as the notebook's first cell does), then run the steps whose lab numbers are given."""
    if not rb.plans:
        rb.preflight()
    return [rb.run(step) for step in rb.steps if step.NUMBER in tuple(numbers)]


def finished_run(root: Path, **params):
    """A run of every step on ``root`` with these parameters, its lock released: the Run, for the test to read its
    results and readings."""
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run

    rb = Run(validate(root=str(root), **params)).start()
    try:
        rb.run_all()
    finally:
        rb.finish()
    return rb


@contextmanager
def started_kernel(name: str, cwd: str | None = None):
    """A kernel started through jupyter_client as papermill starts it, ready: (its manager, a client). Shut down
    at the end (at once), whatever the test did with it. Its ports are this xdist worker's own
    (tests/kernel_ports.py)."""
    from kernel_ports import kernel_manager
    km = kernel_manager(name)
    km.start_kernel(**({"cwd": cwd} if cwd else {}))
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        yield km, kc
    finally:
        kc.stop_channels()
        if km.is_alive():
            km.shutdown_kernel(now=True)


def held(root: Path) -> bool:
    """Whether some process or open file holds the root's lock (the kernel's flock), tried from a file of its own.
    No lock file: no run holds it (a run removes the file, still holding the lock, before it lets go)."""
    import fcntl
    try:
        fd = os.open(Path(root) / "run/lock/nvidia-runtime-runbook.lock", os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing the only descriptor of its open file releases a lock it got


def as_node(root) -> Target:
    """The lab root, taken for the node's own "/" (Target.is_host): what a step asks to tell a real node from a
    sandbox. Only that answer changes; every path still resolves under the lab root."""
    class NodeRoot(Target):
        @property
        def is_host(self) -> bool:
            return True
    return NodeRoot(str(root))


def answer_as_host(monkeypatch) -> None:
    """Every run's sandbox root answers as the machine's own "/" does (Target.is_host), for the rules only a real
    node has; and the node's containerd is not running. Else the run would take a containerd running on this
    machine for the node's (engine/route.py): under pytest-xdist, another test's throw-away daemon, whose --config
    is a file of that test's, so the plan read another config than the one the test wrote (a flake under load)."""
    from runbook_lib.containerd import node

    monkeypatch.setattr(Target, "is_host", property(lambda self: True))
    monkeypatch.setattr(node, "running_containerds", lambda proc="/proc": [])


def fake_bin(folder, name, script):
    """A harmless program ``name`` in ``folder`` that logs its arguments to calls.log, then runs ``script``."""
    path = folder / name
    path.write_text("#!/bin/sh\n" + f'echo "{name} $*" >> "{folder}/calls.log"\n' + script)
    path.chmod(0o755)


def other_spec(kind: str, devices=("all", "0")) -> str:
    """A CDI spec of another vendor's ``kind`` defining ``devices`` (never a conflict with ours)."""
    names = "".join(f"  - name: {d}\n    containerEdits:\n      env: [VENDOR_DEVICE={d}]\n" for d in devices)
    return f'cdiVersion: "0.5.0"\nkind: {kind}\ndevices:\n{names}'


# The node's own CDI spec, as `nvidia-ctk cdi generate` writes it on a one-GPU node (a DGX or an EKS GPU node has
# one): the node profile judges it where it is and needs no nvidia-ctk of this machine to make one, and looks up
# every path it names on the node (issue 51): the node runs with a GPU node's /dev (papermill_as_node's gpus).
NODE_SPEC = """---
cdiVersion: 0.5.0
kind: nvidia.com/gpu
devices:
- name: "0"
  containerEdits:
    deviceNodes:
    - path: /dev/nvidia0
- name: all
  containerEdits:
    deviceNodes:
    - path: /dev/nvidia0
containerEdits:
  env:
  - NVIDIA_VISIBLE_DEVICES=void
  deviceNodes:
  - path: /dev/nvidiactl
"""


def _stat_fields(pid: int) -> list[bytes] | None:
    """/proc/<pid>/stat's fields after the command's name (which may hold spaces and parentheses)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    fields = _stat_fields(pid)
    return bool(fields) and fields[0] != b"Z"


def parent_of(pid: int) -> int | None:
    fields = _stat_fields(pid)
    return int(fields[1]) if fields else None


def node_root(root: Path, config: Path) -> Path:
    """A GPU node's root under ``root``: ``config`` as /etc/containerd/config.toml, the node's own CDI spec
    (NODE_SPEC) in /var/run/cdi and the device files it names. tests/engine/test_node_truth.py and make bench's
    node figure (bench/run.py) run on it."""
    (root / "etc/containerd").mkdir(parents=True)
    (root / "etc/containerd/config.toml").write_bytes(config.read_bytes())
    (root / "var/run/cdi").mkdir(parents=True)
    (root / "var/run/cdi/nvidia.yaml").write_text(NODE_SPEC)
    (root / "dev").mkdir()
    for dev in ("nvidia0", "nvidiactl"):
        (root / "dev" / dev).write_text("")
    return root
