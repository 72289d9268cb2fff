"""Kernels that tests start over TCP, safe side by side in pytest-xdist's workers (issue 53). Every place in tests/
that starts a kernel goes through this module (tests/repo/test_kernel_starts.py holds it).

jupyter_client picks a kernel's five ports at random from Linux's ephemeral range (bind port 0, close) before the
kernel binds them: two kernels started at the same moment in two workers could pick the same port ("Kernel died
before replying to kernel_info").

- A kernel the test process starts (papermill's `execute_notebook` with its stock nbclient engine, nbclient's
  `NotebookClient`, jupyter_client's `KernelManager`) gets its ports here instead, through KernelManager's public
  configurable traits (`shell_port`, ..., `control_port` of jupyter_client's ConnectionFileMixin; `cache_ports`
  off, or its LocalPortCache would pick them again): each worker takes its ports from a range of its own below the
  ephemeral range (gw0 21000-21999, gw1 22000-22999, ..., pytest without xdist 20000-20999; narrower with more
  than 11 workers), one after the other from a random start, skipping a port a quick bind shows is taken. Random
  picks come only from the ephemeral range, so they never meet these; the random start keeps two runs (two
  checkouts on one machine) apart, almost always: their workers share the ranges.
- Plain papermill as a subprocess (the user's own command) picks its ports itself: those runs keep TCP and start
  under one lock shared by every worker of the run (`run_papermill`), let go once the command's kernel listens on
  its five ports (read from /proc: the kernel's `-f` connection file and the listening sockets), from when no
  other random pick can take them; a command that starts no kernel holds it to its end.

The runbook's own runner (`runbook run`, `runbook grade --notebooks`, papermill's `runbook` engine) uses private
Unix sockets and needs none of this."""

from __future__ import annotations

import fcntl
import json
import os
import random
import socket
import subprocess
import threading
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

PORT_NAMES = ("shell_port", "iopub_port", "stdin_port", "hb_port", "control_port")
FIRST_PORT = 20000  # the lowest port a worker's range may use
RANGE_WIDTH = 1000  # ports a worker rotates through: 200 kernels before a port comes round again
IP = "127.0.0.1"  # KernelManager's default ip: the kernel listens on the loopback interface only

# The folder every xdist worker of this run shares, for the papermill lock: set by tests/conftest.py (the parent of
# the worker's basetemp under xdist). None outside pytest: only this process's threads are kept apart.
LOCK_FOLDER: Path | None = None
LOCK_NAME = "tcp-papermill.lock"

_ports_lock = threading.Lock()
_cursor: int | None = None


def ephemeral_range() -> tuple[int, int]:
    """Linux's range of ports a bind to port 0 picks from (jupyter_client's random picks among them)."""
    low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
    return int(low), int(high)


def worker_ports() -> range:
    """This process's range: one per xdist worker (PYTEST_XDIST_WORKER gw0, gw1, ...; none: pytest without xdist),
    disjoint, below the ephemeral range."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    slot = int(worker[2:]) + 1 if worker.startswith("gw") else 0
    slots = max(int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0")) + 1, slot + 1)
    low, _ = ephemeral_range()
    width = min(RANGE_WIDTH, (low - FIRST_PORT) // slots)
    if width < 50:
        raise RuntimeError(f"ports {FIRST_PORT}-{low - 1} (below the ephemeral range, "
                           f"/proc/sys/net/ipv4/ip_local_port_range) are too few for {slots} ranges of kernel ports")
    return range(FIRST_PORT + slot * width, FIRST_PORT + (slot + 1) * width)


def _free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((IP, port))
        except OSError:
            return False
    return True


def free_ports(count: int = len(PORT_NAMES)) -> list[int]:
    """The next ``count`` ports of this worker's range that nothing holds now."""
    global _cursor
    ports = worker_ports()
    with _ports_lock:
        if _cursor is None:
            _cursor = random.randrange(len(ports))
        found: list[int] = []
        for _ in range(len(ports)):
            port = ports[_cursor % len(ports)]
            _cursor += 1
            if _free(port):
                found.append(port)
                if len(found) == count:
                    return found
    raise RuntimeError(f"fewer than {count} free ports in {ports.start}-{ports.stop - 1}")


def kernel_config():
    """traitlets config giving the next kernel manager built with it five ports of this worker's own."""
    from traitlets.config import Config

    return Config({"KernelManager": {"transport": "tcp", "ip": IP, "cache_ports": False,
                                     **dict(zip(PORT_NAMES, free_ports()))}})


def kernel_manager(kernel_name: str = "python3"):
    """jupyter_client's KernelManager for ``kernel_name`` (not started), with ports of this worker's own."""
    from jupyter_client.manager import KernelManager

    return KernelManager(kernel_name=kernel_name, config=kernel_config())


def notebook_client(nb, **kwargs):
    """nbclient's NotebookClient for ``nb`` (its keyword arguments as given); its kernel gets this worker's ports."""
    from nbclient import NotebookClient

    return NotebookClient(nb, config=kernel_config(), **kwargs)


def papermill_execute(input_path, output_path, **kwargs):
    """papermill.execute_notebook with its stock nbclient engine, as given; the kernel gets this worker's ports
    (papermill hands `config` on to nbclient's NotebookClient, which builds its kernel manager with it)."""
    import papermill

    return papermill.execute_notebook(input_path, output_path, config=kernel_config(), **kwargs)


def runbook_engine_execute(input_path, output_path, **kwargs):
    """papermill.execute_notebook with the runbook engine (runbook_lib/evidence/engine.py), as `make run` and
    `runbook run` run a notebook: its kernel is on private IPC sockets, so it takes no port to share, and the
    engine's own kernel manager configuration is what is under test (no `config` is given)."""
    import papermill

    return papermill.execute_notebook(input_path, output_path, engine_name="runbook", **kwargs)


_papermill_held = threading.RLock()
_depth = 0


@contextmanager
def papermill_lock():
    """Held while a plain papermill subprocess (which picks its kernel's ports at random) starts its kernel: one
    such start at a time across the run's workers (an flock on LOCK_FOLDER/LOCK_NAME) and this process's threads.
    Re-entrant in one thread."""
    global _depth
    with _papermill_held:
        fd = None
        if _depth == 0 and LOCK_FOLDER is not None:
            fd = os.open(LOCK_FOLDER / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if fd is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            _depth += 1
            try:
                yield
            finally:
                _depth -= 1
        finally:
            if fd is not None:
                os.close(fd)  # the only descriptor of its open file: the lock goes with it


def _listening(ports: set[int]) -> bool:
    """Whether every one of ``ports`` has a listening TCP socket, from Linux's socket tables."""
    seen: set[int] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            local, state = row.split()[1], row.split()[3]
            if state == "0A":  # LISTEN
                seen.add(int(local.rsplit(":", 1)[1], 16))
    return ports <= seen


def descendants(pid: int) -> list[int]:
    """Every process under ``pid``, from /proc. One that ends while it is read (a short command the run starts,
    listed as a child a moment before) has no task folder any more, and no children left: Path.glob looked at the
    folder (is_dir) before it listed it (scandir), and a process gone between the two raised FileNotFoundError out
    of the test (seen under load beside the node's papermill runs; the window is too narrow to hit on purpose)."""
    found, todo = [], [pid]
    while todo:
        try:
            tasks = list(Path(f"/proc/{todo.pop()}/task").iterdir())
        except OSError:
            continue  # ended since it was listed
        for task in tasks:
            try:
                children = [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
            found += children
            todo += children
    return found


def kernel_listening(pid: int) -> bool:
    """Whether the kernel started under process ``pid`` (papermill's, an ipykernel with its connection file after
    `-f`) listens on all five of its ports: from then on no one else's random pick can take them. Read from /proc
    only (the file as the kernel sees it, under /proc/PID/root: also in a chroot)."""
    for child in descendants(pid):
        try:
            argv = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
            if not any(b"ipykernel" in arg for arg in argv) or b"-f" not in argv:
                continue
            file = argv[argv.index(b"-f") + 1].decode()
            base = f"/proc/{child}/root" if file.startswith("/") else f"/proc/{child}/cwd/"
            info = json.loads(Path(base + file).read_text(encoding="utf-8"))
        except (OSError, ValueError, IndexError):
            continue  # gone, or its file still being written
        if info.get("transport") == "tcp" and _listening({int(info[name]) for name in PORT_NAMES}):
            return True
    return False


def run_papermill(argv, *, timeout: float | None = None, check: bool = False, capture_output: bool = False,
                  **popen) -> subprocess.CompletedProcess:
    """subprocess.run(argv, ...) for a command that runs plain papermill (which picks its kernel's TCP ports at
    random, frees them, then its kernel binds them): started under `papermill_lock`, which is let go once that
    kernel listens on its ports (or the command has ended), so that only the starts wait for each other. ``timeout``
    counts from the command's start, not from the wait for the lock."""
    if capture_output:
        popen["stdout"] = popen["stderr"] = subprocess.PIPE
    # a user's kernel: ipykernel leaves the process's fd 1 and 2 alone under pytest (PYTEST_CURRENT_TEST, which
    # the kernel would inherit), where a user's kernel makes them pipes into the notebook's cells
    popen["env"] = {k: v for k, v in (popen.get("env") or os.environ).items() if k != "PYTEST_CURRENT_TEST"}
    with ExitStack() as held:
        held.enter_context(papermill_lock())
        proc = subprocess.Popen(argv, **popen)
        started = time.monotonic()
        with proc:
            try:
                output = None
                while output is None and not kernel_listening(proc.pid):
                    try:
                        output = proc.communicate(timeout=0.1)  # retried: no output is lost
                    except subprocess.TimeoutExpired:
                        if timeout is not None and time.monotonic() - started > timeout:
                            raise
                held.close()  # its kernel listens (or the command has ended): the next start may go
                if output is None:
                    output = proc.communicate(timeout=None if timeout is None
                                              else max(0.0, timeout - (time.monotonic() - started)))
            except subprocess.TimeoutExpired:
                proc.kill()
                raise subprocess.TimeoutExpired(argv, timeout, *proc.communicate()) from None
            except BaseException:
                proc.kill()
                raise
    done = subprocess.CompletedProcess(argv, proc.returncode, *output)
    if check:
        done.check_returncode()
    return done
