"""Start the notebook's kernel first, so it boots while papermill is still being imported.

A kernel takes ~0.7 s to start (mostly imports), and papermill would only launch it after its own ~0.8 s of
imports, notebook validation and kernel-manager set-up: two CPU-bound waits in a row on a machine with two
cores. The runner calls `spawn()` before it imports papermill; `kernel_manager.RunbookKernelManager` later
adopts that process instead of launching its own, but **only when the command, environment and working
directory it would have used are exactly the ones used here** (`mismatch()`). Otherwise the early kernel is
stopped and the normal launch happens, so the result never depends on this shortcut.

Only the standard library (and jupyter_core's path helper) is imported here: this runs before anything heavy.
The kernel talks over IPC sockets in a private folder (0700): no TCP port is picked, so two runs started at
the same moment cannot collide, and other users cannot connect.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass, field

# AF_UNIX socket paths are limited to 107 bytes; the longest one is "<dir>/kernel-5".
_MAX_SOCKET_PATH = 100
_PORTS = {"shell_port": 1, "iopub_port": 2, "stdin_port": 3, "control_port": 4, "hb_port": 5}
# The kernel's extra arguments, the same here and in kernel_manager.RunbookEngine (the command must match):
# - the kernel's warm-up (runbook_lib.kernel.app.warm_up: the runbook's modules and the CDI validator) while the
#   kernel boots, which overlaps papermill's own start-up, instead of in the notebook's first cell; running it
#   also warms IPython's cell machinery up (exec_lines go through run_cell). If an import fails, the notebook's
#   own import says why. In the nvidia-runbook kernel its own warm-up thread then finds everything loaded.
# - IPython's history in memory: what nbclient adds by default (its `ipython_hist_file`).
# where the runner writes the executed notebook, in the kernel's environment: a cell that links to files beside
# it (notebooks/class.ipynb) makes its links relative to that folder (runbook_lib/cli/runner.py sets it)
OUTPUT_NOTEBOOK = "RUNBOOK_OUTPUT_NOTEBOOK"
KERNEL_EXTRA_ARGUMENTS = ["--IPKernelApp.exec_lines=from runbook_lib.kernel.app import warm_up; warm_up()",
                          "--HistoryManager.hist_file=:memory:"]


@dataclass
class EarlyKernel:
    kernel_name: str
    folder: str
    connection_file: str
    cmd: list[str]
    env: dict[str, str]
    cwd: str
    process: subprocess.Popen
    adopted: bool = field(default=False)

    def mismatch(self, cmd: list[str], launch_kw: dict) -> str | None:
        """Why this process is not the kernel jupyter_client was about to launch (None: it is)."""
        if self.process.poll() is not None:
            return f"the early kernel exited with {self.process.returncode}"
        if list(cmd) != self.cmd:
            return f"command differs: {cmd} != {self.cmd}"
        env = dict(launch_kw.get("env") or os.environ)
        env["JPY_PARENT_PID"] = str(os.getpid())  # what jupyter_client's launcher adds
        if env != self.env:
            changed = sorted(k for k in set(env) | set(self.env) if env.get(k) != self.env.get(k))
            return f"environment differs: {changed}"
        cwd = os.path.realpath(launch_kw.get("cwd") or os.getcwd())
        if cwd != self.cwd:
            return f"working directory differs: {cwd} != {self.cwd}"
        other = {k: v for k, v in launch_kw.items() if k not in ("env", "cwd") and v not in (None, False)}
        if other:
            return f"other launch options: {sorted(other)}"
        return None

    def stop(self) -> None:
        """Stop the process and remove its folder (sockets and connection file)."""
        self.end_process()
        self.remove_folder()

    def end_process(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def remove_folder(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


_pending: EarlyKernel | None = None


def kernel_spec(name: str) -> dict | None:
    """The kernelspec jupyter_client would find for ``name`` (first match on the Jupyter path), or None."""
    from jupyter_core.paths import jupyter_path

    for kernels in jupyter_path("kernels"):
        path = os.path.join(kernels, name.lower(), "kernel.json")
        if os.path.isfile(path):
            try:
                with open(path, encoding="utf-8") as f:
                    spec = json.load(f)
            except (OSError, ValueError):
                return None
            spec["resource_dir"] = os.path.dirname(path)
            return spec
    return None


def _format(argv: list[str], connection_file: str, resource_dir: str) -> list[str]:
    """jupyter_client's KernelManager.format_kernel_cmd, for the three names a kernelspec may use."""
    cmd = list(argv)
    if cmd and cmd[0] in {"python", f"python{sys.version_info[0]}", "python%i.%i" % sys.version_info[:2]}:
        cmd[0] = sys.executable
    names = {"connection_file": os.path.realpath(connection_file), "prefix": sys.prefix,
             "resource_dir": resource_dir}
    out = []
    for arg in cmd:
        for key, value in names.items():
            arg = arg.replace("{%s}" % key, value)
        out.append(os.path.expanduser(arg))
    return out


FOLDER_PREFIX = "runbook-kernel-"


def private_folder() -> str:
    """A kernel's private folder (mode 0700: its connection file and IPC sockets), named for the process that
    makes it (runbook-kernel-<pid>-<random>), after sweeping the folders of makers that no longer exist: a
    grader killed with SIGKILL never removed its own, and the next start removes them."""
    sweep_dead_folders()
    return tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-")


def sweep_dead_folders(tmp: str | None = None) -> list[str]:
    """Remove the kernel folders (ours: this user's, named runbook-kernel-<pid>-...) whose maker is gone. A
    folder whose pid is alive, or that another user owns, or that has no pid in its name, is left alone."""
    tmp = tmp or tempfile.gettempdir()
    removed = []
    try:
        names = os.listdir(tmp)
    except OSError:
        return removed
    for name in names:
        pid = name[len(FOLDER_PREFIX):].split("-", 1)[0] if name.startswith(FOLDER_PREFIX) else ""
        if not pid.isdigit() or _alive(int(pid)):
            continue
        path = os.path.join(tmp, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if st.st_uid != os.geteuid() or not os.path.isdir(path) or os.path.islink(path):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def spawn(kernel_name: str, cwd: str | None = None,
          extra_arguments: list[str] = KERNEL_EXTRA_ARGUMENTS) -> EarlyKernel | None:
    """Start ``kernel_name`` now and keep it for the kernel manager to adopt; None when that is not safe.

    Not safe, so left to jupyter_client: a kernelspec that is missing or unreadable, that sets environment
    variables or a provisioner of its own, or a temporary folder whose socket paths would be too long."""
    global _pending
    discard()
    spec = kernel_spec(kernel_name)
    if not spec or not spec.get("argv") or spec.get("env") or (spec.get("metadata") or {}).get("kernel_provisioner"):
        return None
    try:
        folder = private_folder()
    except OSError:  # no writable temporary folder: jupyter_client's own launch says what is wrong
        return None
    ip = os.path.join(folder, "kernel")
    if len(ip) + 2 > _MAX_SOCKET_PATH:
        shutil.rmtree(folder, ignore_errors=True)
        return None
    connection_file = os.path.join(folder, "connection.json")
    info = {**_PORTS, "ip": ip, "key": str(uuid.uuid4()), "transport": "ipc",
            "signature_scheme": "hmac-sha256", "kernel_name": kernel_name}
    fd = os.open(connection_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(info, f, indent=2)
    cmd = _format([*spec["argv"], *extra_arguments], connection_file, spec["resource_dir"])
    env = os.environ.copy()
    if str(spec.get("language", "")).lower().startswith("python"):
        env.pop("PYTHONEXECUTABLE", None)  # as jupyter_client's provisioner does
    env["JPY_PARENT_PID"] = str(os.getpid())  # the kernel exits when this process is gone
    work = os.path.realpath(cwd or os.getcwd())
    try:
        # The same Popen options as jupyter_client.launcher.launch_kernel on POSIX.
        process = subprocess.Popen(cmd, stdin=subprocess.PIPE, env=env, cwd=work, start_new_session=True)
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        return None
    process.stdin.close()
    _pending = EarlyKernel(kernel_name, folder, connection_file, cmd, env, work, process)
    return _pending


def has_pending() -> bool:
    return _pending is not None


def notebook_kernel_name(path: str) -> str | None:
    """The kernelspec name a local notebook file asks for (papermill's default kernel), or None."""
    try:
        with open(path, encoding="utf-8") as f:
            return ((json.load(f).get("metadata") or {}).get("kernelspec") or {}).get("name")
    except (OSError, ValueError, AttributeError):
        return None


def spawn_for_notebook(path: str) -> None:
    """Start the kernel ``path`` asks for, unless an early kernel is already waiting (`runbook run`)."""
    if not has_pending():
        name = notebook_kernel_name(path)
        if name:
            spawn(name)


def claim(kernel_name: str) -> EarlyKernel | None:
    """Hand the early kernel over (once), if it was started for ``kernel_name``; otherwise stop it."""
    global _pending
    early, _pending = _pending, None
    if early is None:
        return None
    if early.kernel_name.lower() != (kernel_name or "").lower():
        early.stop()
        return None
    return early


def discard() -> None:
    """Stop an early kernel nobody claimed (a run that failed before its kernel was needed)."""
    global _pending
    early, _pending = _pending, None
    if early is not None:
        early.stop()


atexit.register(discard)
