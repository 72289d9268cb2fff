"""A real node's "/" for a test: a folder made the root of a mount namespace of its own (`unshare -m`, then
`chroot`), so that the runbook run inside it with `-p root /` is told a real node the way a user's node is (its
root *is* "/"), while every byte it writes lands in the test's folder.

Into the folder go, read-only, only what running Python needs: /usr (programs and libraries; /bin, /lib, /lib64
and /sbin as the links usrmerge makes), the interpreter's prefix, the checkout (its .venv and the editable
install), /etc/ld.so.cache, and /dev. Nothing of the machine's /etc, /root, /var or /run is there: the node's
files are the ones the test put in the folder. The mount namespace ends with the command, so nothing of it is left
mounted on the machine.

The node's processes are its own too: a PID namespace of its own (`unshare -p -f`) whose /proc shows only the
command and what it starts. The machine's /proc listed every process of the machine, and on a real node the runbook
takes a running containerd's `--config` for the node's config (containerd/node.py): a throw-away containerd that
another test ran meanwhile (tests/real, its config in that test's temp folder) was taken for the node's, and the
run wrote its runtime into a config.toml at that daemon's path under the node (step 2 "changed", only under load,
when the other xdist worker ran such a test at the same moment).
"""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO
from kernel_ports import run_papermill

sys.path.insert(0, str(Path(__file__).resolve().parent / "real"))
import realenv  # noqa: E402  (the one skip-or-fail switch for real programs)

PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin"


def _read_only(folders) -> list[str]:
    """The folders bound read-only at the same paths, each once (a folder inside another comes with it)."""
    paths = [Path(f).resolve() for f in folders]
    out = []
    for folder in dict.fromkeys(str(f) for f in paths if not any(o != f and o in f.parents for o in paths)):
        out += [f'mkdir -p "$N{folder}"', f'mount --rbind "{folder}" "$N{folder}"',
                f'mount -o remount,bind,ro "$N{folder}"']
    return out


# what running Python and its kernel open in /dev, bound from this machine into a node's own /dev
HOST_DEVICES = ("null", "zero", "full", "random", "urandom", "tty", "ptmx")


def _gpu_dev(gpus: int) -> list[str]:
    """The node's /dev as a GPU node's: a tmpfs of the namespace (gone with it, nothing written on the machine)
    holding this machine's few devices Python opens and the node's GPUs as the driver makes them, with mknod
    (nvidia0..nvidia<gpus-1>, 195:N, and nvidiactl, 195:255): the paths a node's CDI spec names, which step 6
    looks up (issue 51)."""
    out = ['mount -t tmpfs -o mode=755 nodedev "$N/dev"']
    for name in HOST_DEVICES:
        out += [f'touch "$N/dev/{name}"', f'mount --bind "/dev/{name}" "$N/dev/{name}"']
    for name in ("pts", "shm"):
        out += [f'mkdir "$N/dev/{name}"', f'mount --rbind "/dev/{name}" "$N/dev/{name}"']
    out += [f'mknod -m 666 "$N/dev/nvidia{i}" c 195 {i}' for i in range(gpus)]
    return out + ['mknod -m 666 "$N/dev/nvidiactl" c 195 255']


def run_as_node(node: Path, argv: list[str], timeout: float = 300, gpus: int = 0,
                run=subprocess.run, own_pids: bool = True) -> subprocess.CompletedProcess:
    """``argv`` run as root of a node whose "/" is ``node`` (see the module's docstring); with ``gpus``, its /dev
    is a GPU node's (_gpu_dev) instead of this machine's. ``run``: subprocess.run, or kernel_ports.run_papermill
    for plain papermill. ``own_pids=False``: the node shares the machine's processes, as a chroot into an image
    being built does (Packer's chroot builders)."""
    if "MUTANT_UNDER_TEST" in os.environ:  # set by mutmut in every pass of `make mutate`
        pytest.skip("make mutate: 노드는 mutants/ 의 변이된 사본이 아니라 설치된 runbook_lib 를 실행하므로 어떤 변이도 "
                    "잡지 못합니다 / the node runs the checkout's installed runbook_lib, not mutmut's mutated copy under "
                    "mutants/ (the checkout mutmut runs from is not mounted in the node), so it could kill no mutant")
    realenv.need_root()
    for program in ("unshare", "chroot", "mount") + (("mknod",) if gpus else ()):
        realenv.need_program(program)
    script = ["set -e", "mount --make-rprivate /",
              *_read_only(["/usr", sys.base_prefix, sys.prefix, REPO]),
              *[f'[ -e "$N/{link}" ] || ln -s usr/{link} "$N/{link}"' for link in ("bin", "lib", "lib64", "sbin")],
              'mkdir -p "$N/proc" "$N/dev" "$N/tmp" "$N/etc"', 'chmod 1777 "$N/tmp"',
              'touch "$N/etc/ld.so.cache"', 'mount --bind /etc/ld.so.cache "$N/etc/ld.so.cache"',
              'mount -t proc proc "$N/proc"', *(_gpu_dev(gpus) if gpus else ['mount --rbind /dev "$N/dev"']),
              f'exec chroot "$N" /usr/bin/env -i PATH={PATH} HOME=/tmp LANG=C.UTF-8 ' + shlex.join(argv)]
    # -p -f: the shell is the first process of a PID namespace of its own, so the proc it mounts is the node's
    pids = ["-p", "-f"] if own_pids else []
    return run(["unshare", "-m", *pids, "sh", "-c", "\n".join(script)], env={"N": str(node), "PATH": PATH},
               capture_output=True, text=True, timeout=timeout)


def papermill_as_node(node: Path, *params: str, out: str = "/tmp/run.ipynb",
                      gpus: int = 0) -> tuple[subprocess.CompletedProcess, Path]:
    """The user's own command on a real node, `papermill notebooks/run.ipynb out.ipynb -p root /` with ``params``
    added: (the process, the executed notebook's path seen from outside). ``gpus``: a GPU node's /dev. The node
    shares the machine's network: its kernel starts one at a time across xdist's workers (tests/kernel_ports.py)."""
    argv = [sys.executable, "-m", "papermill", "--no-progress-bar", str(REPO / "notebooks" / "run.ipynb"), out,
            "-p", "root", "/", *params]
    return run_as_node(node, argv, gpus=gpus, run=run_papermill), node / out.lstrip("/")
