"""tests/kernel_ports.py (issue 53): each xdist worker's kernel ports are its own, below the ephemeral range that
random picks come from; a port something holds is skipped; a kernel started through the helpers listens on the
ports given; plain papermill's lock keeps a second process out while it is held, and `run_papermill` holds it
until the command's kernel listens on its ports (the real papermill), or until the command ends."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

import kernel_ports


def test_each_worker_has_its_own_range_below_the_ephemeral_range(monkeypatch):
    low, _ = kernel_ports.ephemeral_range()
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "12")
    ranges = []
    for worker in [None] + [f"gw{n}" for n in range(12)]:
        if worker is None:
            monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
        else:
            monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        ranges.append(kernel_ports.worker_ports())
    ports = [port for r in ranges for port in r]
    assert len(ports) == len(set(ports)), "two workers share a port"
    assert min(ports) >= kernel_ports.FIRST_PORT and max(ports) < low
    assert min(len(r) for r in ranges) >= 5 * 40  # 40 kernels at least before a port comes round again


def test_a_port_something_holds_is_never_given():
    span = kernel_ports.worker_ports()
    (port,) = kernel_ports.free_ports(1)
    with socket.socket() as held:
        held.bind((kernel_ports.IP, port))
        held.listen()
        given = [p for _ in range(len(span) // 5 + 1) for p in kernel_ports.free_ports()]
    assert port not in given
    assert set(given) <= set(span)
    assert len(set(given)) > len(span) // 2  # the range's ports in turn (a few may be another run's, held)


def test_a_kernel_started_through_the_helper_listens_on_the_ports_given():
    km = kernel_ports.kernel_manager("python3")
    asked = {name: getattr(km, name) for name in kernel_ports.PORT_NAMES}
    assert set(asked.values()) <= set(kernel_ports.worker_ports())
    printed: list[str] = []

    def hook(msg):
        if msg["msg_type"] == "stream":
            printed.append(msg["content"]["text"])

    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        reply = kc.execute_interactive("import ipykernel; print(ipykernel.get_connection_info())", timeout=60,
                                       output_hook=hook)
        assert reply["content"]["status"] == "ok"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    seen = json.loads("".join(printed))
    assert {name: seen[name] for name in kernel_ports.PORT_NAMES} == asked


TRY_LOCK = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    print("got it")
except BlockingIOError:
    print("held")
"""


def _other(tmp_path) -> str:
    """What another process gets of the lock now: "held" or "got it" (let go at once)."""
    return subprocess.run([sys.executable, "-c", TRY_LOCK, str(tmp_path / kernel_ports.LOCK_NAME)],
                          capture_output=True, text=True, timeout=60).stdout.strip()


def _waits_for(go) -> str:
    return f"import pathlib, time\nwhile not pathlib.Path({str(go)!r}).exists():\n    time.sleep(0.1)\n"


def test_papermills_lock_keeps_another_process_out_while_held(tmp_path, monkeypatch):
    monkeypatch.setattr(kernel_ports, "LOCK_FOLDER", tmp_path)

    def other() -> str:
        return _other(tmp_path)

    with kernel_ports.papermill_lock():
        with kernel_ports.papermill_lock():  # the same thread again: no wait for itself
            inner = other()
        outer = other()
    assert (inner, outer, other()) == ("held", "held", "got it")


def test_run_papermill_lets_the_lock_go_once_papermills_kernel_listens(tmp_path, monkeypatch):
    """The real papermill on a notebook whose cell waits for a file: the lock is free while that cell still waits
    (the kernel has bound its ports), so the next start need not wait for this run's end."""
    monkeypatch.setattr(kernel_ports, "LOCK_FOLDER", tmp_path)
    go = tmp_path / "go"
    nb = new_notebook(cells=[new_code_cell(_waits_for(go))],
                      metadata={"kernelspec": {"name": "python3", "display_name": "python3", "language": "python"}})
    nbformat.write(nb, str(tmp_path / "wait.ipynb"))
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(kernel_ports.run_papermill, [sys.executable, "-m", "papermill", "--no-progress-bar",
                                                           str(tmp_path / "wait.ipynb"), str(tmp_path / "out.ipynb")],
                              capture_output=True, text=True, timeout=300)
        guard = time.monotonic() + 120  # a hang's guard only
        while not (tmp_path / "out.ipynb").exists() or _other(tmp_path) == "held":
            assert time.monotonic() < guard and not running.done(), running.result().stderr if running.done() else ""
            time.sleep(0.2)
        free_while_running = not running.done()
        go.touch()
        done = running.result()
    assert done.returncode == 0, done.stderr[-2000:]
    assert free_while_running


def test_run_papermill_holds_the_lock_to_the_end_of_a_command_that_starts_no_kernel(tmp_path, monkeypatch):
    monkeypatch.setattr(kernel_ports, "LOCK_FOLDER", tmp_path)
    go, started = tmp_path / "go", tmp_path / "started"
    script = f"import pathlib\npathlib.Path({str(started)!r}).touch()\n" + _waits_for(go)
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(kernel_ports.run_papermill, [sys.executable, "-c", script], timeout=300)
        guard = time.monotonic() + 120  # a hang's guard only
        while not started.exists():
            assert time.monotonic() < guard and not running.done()
            time.sleep(0.1)
        during = _other(tmp_path)
        go.touch()
        assert running.result().returncode == 0
    assert (during, _other(tmp_path)) == ("held", "got it")
