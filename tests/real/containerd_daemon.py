"""A real containerd daemon on a sandboxed copy of a config: every path it writes is in a temp folder.

The copy keeps the file's runtimes and CRI settings and moves root, state, sockets, plugin, opt and CNI
folders into the temp folder, with the `native` snapshotter (works on any filesystem). containerd 1.6
puts shim sockets and runc state under the fixed /run/containerd, so the daemon runs in a private mount
namespace with a tmpfs on /run: nothing of it reaches the host's /run. It is stopped by its PID, and any
shim it started (found by our socket address in its command line) is stopped by PID too.
"""
from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import tomlkit

CRI = "io.containerd.grpc.v1.cri"


def sandbox_config(config_text: str, base: Path, sandbox_image: str = "localhost/runbook/pause:test") -> str:
    doc = tomlkit.parse(config_text)
    doc["root"], doc["state"] = str(base / "root"), str(base / "state")
    doc["plugin_dir"] = str(base / "plugins")
    doc.setdefault("grpc", tomlkit.table())["address"] = str(base / "containerd.sock")
    doc.setdefault("ttrpc", tomlkit.table())["address"] = str(base / "containerd.sock.ttrpc")
    doc.setdefault("debug", tomlkit.table())["address"] = ""
    doc.setdefault("metrics", tomlkit.table())["address"] = ""
    plugins = doc.setdefault("plugins", tomlkit.table())
    plugins.setdefault("io.containerd.internal.v1.opt", tomlkit.table())["path"] = str(base / "opt")
    cri = plugins.setdefault(CRI, tomlkit.table())
    cri["sandbox_image"] = sandbox_image
    # a pod's pause process asks for oom_score_adj -998; in a container (this CI) lowering it is refused,
    # so clamp it to the daemon's own value, as containerd does for rootless setups
    cri["restrict_oom_score_adj"] = True
    cri["stream_server_address"], cri["stream_server_port"] = "127.0.0.1", "0"
    cri.setdefault("containerd", tomlkit.table())["snapshotter"] = "native"
    cni = cri.setdefault("cni", tomlkit.table())
    cni["bin_dir"], cni["conf_dir"] = str(base / "cni" / "bin"), str(base / "cni" / "net.d")
    cri.setdefault("registry", tomlkit.table())["config_path"] = str(base / "certs.d")
    return tomlkit.dumps(doc)


class Daemon:
    def __init__(self, containerd: str, config_text: str, base: Path):
        self.base = base
        self.config = base / "config.toml"
        self.socket = base / "containerd.sock"
        self.log = base / "containerd.log"
        self.config.write_text(sandbox_config(config_text, base))
        script = 'mount -t tmpfs -o mode=0755 runbook-run /run && exec "$0" --config "$1"'
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                ["unshare", "--mount", "--propagation", "private", "sh", "-c", script,
                 containerd, str(self.config)], stdout=log, stderr=subprocess.STDOUT)
        self.pid = self.proc.pid  # sh execs containerd: this is the daemon's PID

    def wait_ready(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"containerd exited with {self.proc.returncode}:\n{self.log.read_text()}")
            if self.socket.exists() and "serving..." in self.log.read_text():
                return
            time.sleep(0.1)
        raise TimeoutError(f"containerd not ready after {timeout}s:\n{self.log.read_text()}")

    def ctr(self, *args: str, **kw) -> subprocess.CompletedProcess:
        return subprocess.run(["ctr", "--address", str(self.socket), "--namespace", "k8s.io", *args],
                              capture_output=True, text=True, timeout=120, **kw)

    def _shim_pids(self) -> list[int]:
        pids = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if cmdline and b"containerd-shim" in cmdline[0] and str(self.socket).encode() in cmdline:
                pids.append(int(entry.name))
        return pids

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for pid in self._shim_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        subprocess.run(["umount", "-R", str(self.base / "root")], capture_output=True)  # if any remained

    def leftovers(self) -> list[str]:
        """What of this daemon still exists outside its temp folder: processes and mounts."""
        found = [f"pid {pid}" for pid in self._shim_pids()]
        if self.proc.poll() is None:
            found.append(f"containerd pid {self.pid}")
        found += [ln for ln in Path("/proc/self/mountinfo").read_text().splitlines() if str(self.base) in ln]
        return found
