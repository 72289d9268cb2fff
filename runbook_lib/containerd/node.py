"""The node's own containerd, on a real node: which containerd daemons run, with which `--config`, whose
each looks like (Docker's, k3s's and the system's can run side by side), and whether a config's CRI plugin is
enabled at all (Docker's packaged config has `disabled_plugins = ["cri"]`: a runtime registered there is
never seen by Kubernetes).

Read from /proc (PID/cmdline), the way `ps` does; nothing is started or asked over a socket here. Only a
daemon whose "/" is this run's "/" (PID/root) is the node's: a run chrooted into an image being built (Packer's
chroot builders, a rescue chroot) sees the build machine's processes, and that containerd's --config names a file
of the machine, not of the image. The
containerd version (`containerd --version`, ask.containerd_version) then picks the config version for an
empty config (versions.version_for_containerd).
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass

from runbook_lib.containerd.versions import of

DEFAULT_CONFIG = "/etc/containerd/config.toml"

_OWNERS = (("/var/lib/rancher/k3s/", "k3s"), ("/var/lib/rancher/rke2/", "rke2"), ("/snap/microk8s/", "microk8s"),
           ("/var/snap/microk8s/", "microk8s"), ("/var/lib/k0s/", "k0s"), ("/etc/k0s/", "k0s"),
           ("/run/docker/", "docker"), ("/var/run/docker/", "docker"))


@dataclass(frozen=True)
class Daemon:
    pid: int
    argv: tuple[str, ...]
    config: str          # the --config (-c) it was started with, or containerd's default
    address: str | None  # the --address (-a), when given
    owner: str           # "containerd", "docker", "k3s", "rke2", "microk8s" or "k0s"


def _flag(argv: tuple[str, ...], *names: str) -> str | None:
    for i, arg in enumerate(argv):
        for name in names:
            if arg == name and i + 1 < len(argv):
                return argv[i + 1]
            if name.startswith("--") and arg.startswith(name + "="):
                return arg[len(name) + 1:]
    return None


def parse_cmdline(pid: int, raw: bytes) -> Daemon | None:
    """A Daemon for a containerd command line (NUL-separated, as in /proc/PID/cmdline), else None
    (shims, ctr, and every other program)."""
    argv = tuple(a.decode("utf-8", "replace") for a in raw.rstrip(b"\0").split(b"\0") if a)
    if not argv or posixpath.basename(argv[0]) != "containerd":
        return None
    if len(argv) > 1 and not argv[1].startswith("-"):
        return None  # `containerd config dump` and other subcommands: not a daemon
    config = _flag(argv, "--config", "-c") or DEFAULT_CONFIG
    address = _flag(argv, "--address", "-a")
    where = " ".join([config, address or "", argv[0]])
    owner = next((o for prefix, o in _OWNERS if prefix in where), "containerd")
    return Daemon(pid, argv, config, address, owner)


def _shares_our_root(proc: str, entry: str) -> bool:
    """Whether the process's "/" is ours (the same folder of the same file system). A process we may not look
    into (a run without root) is taken as ours, as `ps` would list it."""
    try:
        theirs = os.stat(os.path.join(proc, entry, "root"))
    except OSError:
        return True
    ours = os.stat("/")
    return (theirs.st_dev, theirs.st_ino) == (ours.st_dev, ours.st_ino)


def running_containerds(proc: str = "/proc") -> list[Daemon]:
    """Every containerd daemon running on this machine whose "/" is ours, by PID."""
    out = []
    for entry in os.listdir(proc):
        if not entry.isdigit():
            continue
        try:
            with open(os.path.join(proc, entry, "cmdline"), "rb") as f:
                raw = f.read()
        except OSError:
            continue  # gone, or not ours to read
        daemon = parse_cmdline(int(entry), raw)
        if daemon is not None and _shares_our_root(proc, entry):
            out.append(daemon)
    return sorted(out, key=lambda d: d.pid)


def cri_disabled_by(data: dict, version: int) -> list[str]:
    """The `disabled_plugins` entries that turn the CRI plugin off (empty when CRI is on)."""
    disabled = data.get("disabled_plugins") or []
    return [d for d in disabled if isinstance(d, str) and d in of(version).cri_disabled_by]


def kubernetes_daemon(daemons: list[Daemon]) -> Daemon | None:
    """The daemon Kubernetes uses when several run: a distribution's first, then the system's; Docker's own
    containerd (dockerd's, under /run/docker) serves Docker only."""
    for owner in ("k3s", "rke2", "microk8s", "k0s", "containerd"):
        found = [d for d in daemons if d.owner == owner]
        if found:
            return found[0]
    return None
