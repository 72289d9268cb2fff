"""A node's CDI spec, made as NVIDIA documents it: `nvidia-ctk cdi generate`, by the toolkit that provides
nvidia-container-runtime, run with the target root as its driver root and device root, printing the spec on
its standard output (nothing is written by it: the runbook writes the spec as it writes every file, planned,
backed up, atomically). Its output is judged by the same rules as any spec (cdi/spec.py). The lab's minimal
spec (spec.build_minimal_spec) is never a node's.

A root other than / is the node's / mounted elsewhere (a DaemonSet's --root /host): the generated spec names
every device and library under it (/host/dev/nvidia0), paths the node itself does not have. The same nvidia-ctk
then takes the mount point off every path, `nvidia-ctk cdi transform root --from <root> --to /`, reading the
spec on its standard input and printing it on its standard output (no file of its own), so the spec written
names the node's own /dev/nvidia0 (cdi/host_paths.py holds every path against the node).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess

from runbook_lib.findings.errors import RunbookError
from runbook_lib.fs.lifeline import child_preexec

PACKAGE = "nvidia-container-toolkit"  # the package that ships nvidia-ctk (Debian/Ubuntu and RHEL alike)
TIMEOUT = 120  # seconds; a driver's nvml may be slow on a node with many GPUs, a hang is not waited for


class GenerateError(RunbookError, OSError):
    """nvidia-ctk is not there, or could not make a spec."""
    default_code = "cdi.generate.failed"


def binary(p, root) -> str | None:
    """The nvidia-ctk to run: the nvidia_ctk parameter; else, when the root is this machine's /, the node's own
    on PATH. A root mounted elsewhere is another machine's: its binaries are not run from here."""
    if p.nvidia_ctk:
        return p.nvidia_ctk if os.access(p.nvidia_ctk, os.X_OK) and os.path.isfile(p.nvidia_ctk) else None
    if os.path.realpath(str(root)) == "/":
        return shutil.which("nvidia-ctk")
    return None


def command(ctk: str, root, extra: str) -> list[str]:
    return [ctk, "cdi", "generate", f"--driver-root={root}", f"--dev-root={root}", *shlex.split(extra)]


def transform_command(ctk: str, root) -> list[str]:
    """The root transform from the mount point to the node's own /, spec on stdin, spec on stdout."""
    return [ctk, "cdi", "transform", "root", f"--from={root}", "--to=/", "--input=-"]


def _run(argv: list[str], spec: str, code: str, stdin: str | None = None, **values) -> str:
    """The program's standard output, or GenerateError ``code`` with why it made none."""
    try:
        done = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=TIMEOUT,
                              preexec_fn=child_preexec, env={**os.environ, "NVIDIA_CTK_CDI_OUTPUT_FILE_PATH": ""})
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GenerateError.of(code, spec, reason=str(exc), **values) from None
    if done.returncode != 0 or not done.stdout.strip():
        said = [line for line in done.stderr.splitlines() if "level=error" in line or "level=fatal" in line]
        reason = "\n".join((said or done.stderr.splitlines() or [f"exit {done.returncode}"])[-3:])
        raise GenerateError.of(code, spec, reason=reason, **values)
    return done.stdout


def generate(p, root, spec: str) -> tuple[str, str]:
    """(the spec's text, the commands that made it, as a shell would run them), or GenerateError naming what
    to install or what failed. On a root other than /, the spec's paths are the node's own (transform_command)."""
    ctk = binary(p, root)
    if ctk is None:
        raise GenerateError.of("cdi.generate.no_nvidia_ctk", spec, spec=spec, package=PACKAGE,
                               given=p.nvidia_ctk or "nvidia-ctk")
    try:
        extra = command(ctk, root, p.cdi_generate_args)
    except ValueError as exc:  # an unclosed quote in cdi_generate_args
        raise GenerateError.of("cdi.generate.bad_args", spec, args=p.cdi_generate_args, reason=str(exc)) from None
    text = _run(extra, spec, "cdi.generate.failed", cmd=shlex.join(extra))
    shown = shlex.join(extra)
    if os.path.realpath(str(root)) != "/":
        shown = f"{shown} | {shlex.join(transform_command(ctk, root))}"
        text = _run(transform_command(ctk, root), spec, "cdi.generate.transform_failed", stdin=text, cmd=shown,
                    root=str(root))
    return (text if text.endswith("\n") else text + "\n"), shown
