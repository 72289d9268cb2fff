"""A throw-away containerd daemon on a copy of a config: every path it writes is in a temp folder.

The copy keeps the config's runtimes and CRI settings and moves root, state, sockets, plugin, opt and CNI
folders into the temp folder, with the `native` snapshotter (it works on any file system). containerd 1.6
puts shim sockets and runc state under the fixed /run/containerd, so the daemon runs in a private mount
namespace with a tmpfs on /run: nothing of it reaches the host's /run. It is stopped by its PID, and every
shim it started (found by our socket's address in its command line) is stopped by PID too.

The pod step's `sandbox` mode (runbook_lib/containerd/smoke/sandbox.py) and the tests use it.
"""
from __future__ import annotations

import copy
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import tomlkit

from runbook_lib.containerd.versions import NO_VERSION_LINE, of

PAUSE_IMAGE = "localhost/runbook/pause:smoke"


def _table(parent: dict, key: str) -> dict:
    value = parent.get(key)
    if not isinstance(value, dict):
        value = parent[key] = {}
    return value


def _set(table: dict, keys: tuple[str, ...], value) -> None:
    for key in keys[:-1]:
        table = _table(table, key)
    table[keys[-1]] = value


def sandbox_config(data: dict, version: int, base: Path, sandbox_image: str = PAUSE_IMAGE) -> str:
    """The config `data` (as containerd reads it: the main file merged with its imports) with every path
    containerd writes moved under `base`, as TOML text. The tables it changes are the version's (versions.py:
    plugin IDs in version 1, URIs from 2; 2.x's CRI split into images, runtime and the gRPC service; 2.3's
    servers as plugins)."""
    rec = of(version)
    doc = copy.deepcopy(data)
    doc.pop("imports", None)  # already merged into `data`
    doc["version"] = version
    doc["root"], doc["state"] = str(base / "root"), str(base / "state")
    doc["plugin_dir"] = str(base / "plugins")
    plugins = _table(doc, "plugins")
    addresses = {"grpc": str(base / "containerd.sock"), "ttrpc": str(base / "containerd.sock.ttrpc"),
                 "debug": "", "metrics": ""}
    for server, address in addresses.items():
        if rec.server_plugins:  # version 4 reads the servers' tables as plugins, and no top-level ones
            doc.pop(server, None)
            _table(plugins, f"{rec.server_plugins}{server}")["address"] = address
        else:
            _table(doc, server)["address"] = address
    if rec.server_plugins:  # a node's grpc-tcp listener (2.3+) would bind its address beside the node's
        _table(plugins, f"{rec.server_plugins}grpc-tcp")["address"] = ""
    for name, table in plugins.items():  # a snapshotter's own root would be written outside the temp folder
        if name.startswith("io.containerd.snapshotter.v1.") and isinstance(table, dict):
            table.pop("root_path", None)
    _table(plugins, rec.opt_plugin)["path"] = str(base / "opt")
    cri = _table(plugins, rec.cri_service)
    images = _table(plugins, rec.images_plugin) if rec.images_plugin else cri
    runtime = _table(plugins, rec.plugin_id)  # 1.x: the CRI plugin itself
    _set(images, rec.sandbox_image, sandbox_image)
    _set(images, rec.snapshotter, "native")
    # a pod's pause process asks for oom_score_adj -998; in a container (CI) lowering it is refused, so clamp
    # it to the daemon's own value, as containerd does for rootless setups
    runtime["restrict_oom_score_adj"] = True
    cri["stream_server_address"], cri["stream_server_port"] = "127.0.0.1", "0"
    cni = _table(runtime, "cni")
    cni["bin_dir"], cni["conf_dir"] = str(base / "cni" / "bin"), str(base / "cni" / "net.d")
    _table(images, "registry")["config_path"] = str(base / "certs.d")
    return tomlkit.dumps(doc)


def sandbox_config_text(config_text: str, base: Path, sandbox_image: str = PAUSE_IMAGE) -> str:
    """The same for one config file's text (the tests' configs have no imports)."""
    import tomllib
    data = tomllib.loads(config_text)
    return sandbox_config(data, int(data.get("version", NO_VERSION_LINE)), base, sandbox_image)


def shims_beside(containerd: str) -> dict[str, str]:
    """The daemon's environment: containerd looks for its shim (containerd-shim-runc-v2) on PATH before beside
    itself, so a release's own shim, installed beside its containerd, is put first; another release's shim
    can refuse what a newer containerd asks of it (2.3 and the shim of 1.6: "type with url ... not found")."""
    env = dict(os.environ)
    folder = os.path.dirname(containerd)
    if folder:
        env["PATH"] = os.pathsep.join([folder, env.get("PATH", os.defpath)])
    return env


def serves_grpc(log: str, socket: Path) -> bool:
    """Whether containerd's log says its gRPC socket listens: its `serving...` line for that very address.
    Its ttrpc socket's line comes first, and the gRPC socket's file exists a moment before it listens (bind,
    then listen), so neither the file nor any `serving...` line is enough: a client let in between was refused."""
    line = re.compile(rf'msg="?serving\.\.\."? address="?{re.escape(str(socket))}"?$', re.MULTILINE)
    return line.search(log) is not None


class Daemon:
    """One containerd on a config text, in a private mount namespace, its files under `base`."""

    def __init__(self, containerd: str, config_text: str, base: Path):
        self.base = base
        self.config = base / "config.toml"
        self.socket = base / "containerd.sock"
        self.log = base / "containerd.log"
        self.config.write_text(config_text)
        script = 'mount -t tmpfs -o mode=0755 runbook-run /run && exec "$0" --config "$1"'
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                ["unshare", "--mount", "--propagation", "private", "sh", "-c", script,
                 containerd, str(self.config)], stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                env=shims_beside(containerd))
        self.pid = self.proc.pid  # sh execs containerd: this is the daemon's PID

    def said(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def wait_ready(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise DaemonFailed(f"containerd exited with {self.proc.returncode}", self.said())
            if serves_grpc(self.said(), self.socket):
                return
            time.sleep(0.02)  # a stat and a read of a short log: asked often, the daemon is answered as it is up
        raise DaemonFailed(f"containerd not ready after {timeout:g}s", self.said())

    def ctr(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run(["ctr", "--address", str(self.socket), "--namespace", "k8s.io", *args],
                              capture_output=True, text=True, timeout=timeout)

    def shim_pids(self) -> list[int]:
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
        for pid in self.shim_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        subprocess.run(["umount", "-R", str(self.base / "root")], capture_output=True)  # if any remained

    def leftovers(self) -> list[str]:
        """What of this daemon still exists outside its temp folder: processes and mounts."""
        found = [f"containerd-shim pid {pid}" for pid in self.shim_pids()]
        if self.proc.poll() is None:
            found.append(f"containerd pid {self.pid}")
        found += [f"mount {ln.split()[4]}" for ln in Path("/proc/self/mountinfo").read_text().splitlines()
                  if str(self.base) in ln]
        return found


class DaemonFailed(RuntimeError):
    """containerd stopped, or never answered; carries its log (its own words)."""

    def __init__(self, what: str, log: str):
        super().__init__(f"{what}:\n{log}")
        self.what, self.log = what, log
