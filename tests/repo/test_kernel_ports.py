"""tests/kernel_ports.py (issue 53): each xdist worker's kernel ports are its own, below the ephemeral range that
random picks come from; a port something holds is skipped; a kernel started through the helpers listens on the
ports given; plain papermill's lock keeps a second process out while it is held."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

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


def test_papermills_lock_keeps_another_process_out_while_held(tmp_path, monkeypatch):
    monkeypatch.setattr(kernel_ports, "LOCK_FOLDER", tmp_path)
    lock = str(tmp_path / kernel_ports.LOCK_NAME)

    def other() -> str:
        return subprocess.run([sys.executable, "-c", TRY_LOCK, lock], capture_output=True, text=True,
                              timeout=60).stdout.strip()

    with kernel_ports.papermill_lock():
        with kernel_ports.papermill_lock():  # the same thread again: no wait for itself
            inner = other()
        outer = other()
    assert (inner, outer, other()) == ("held", "held", "got it")
