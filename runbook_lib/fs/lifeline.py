"""Nothing the runbook starts outlives what started it: a process asks the kernel to kill it when its parent dies.

`runbook grade` starts worker processes, each worker a kernel, a kernel may run `containerd config dump`. If
the command is stopped (Ctrl-C, SIGTERM from a CI timeout, SIGKILL), each of them would otherwise keep running,
hung on what it was reading, in a session of its own (kernels are started with start_new_session, so a
terminal's Ctrl-C never reaches them). Linux's PR_SET_PDEATHSIG delivers a signal to a process the moment its
parent exits, whatever the way; a parent killed before the call is caught by comparing getppid() with the
parent we expect (the process was then already adopted by init or a subreaper).

ipykernel's own parent poller (JPY_PARENT_PID, checked once a second) stays as a second line: it needs the
kernel's Python to run, PR_SET_PDEATHSIG does not.

Only on Linux; elsewhere a no-op.
"""

from __future__ import annotations

import os
import signal

_PR_SET_PDEATHSIG = 1


def _libc():
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True)
    except (ImportError, OSError):
        return None


# loaded once, in the parent: a child forked for a subprocess (child_preexec) then finds it there instead of
# loading ctypes and resource anew before every program the runbook starts
_LIBC = _libc()
try:
    import resource
except ImportError:  # not Unix
    resource = None


def die_with_parent(expected_parent: int | None = None, sig: int = signal.SIGKILL) -> bool:
    """Ask to get ``sig`` when the parent exits; exit now if the parent is already gone. True when armed."""
    try:
        if _LIBC is None or _LIBC.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
            return False
    except AttributeError:  # not Linux, or no prctl
        return False
    if expected_parent is not None and os.getppid() != expected_parent:
        os._exit(1)  # the parent died before the call: nobody will ever read what this process does
    return True


def child_preexec() -> None:
    """For subprocess.Popen(preexec_fn=...): the child dies with the runbook, and gets back the address space
    the kernel's memory guard took away (runbook_lib.engine.limits: a Go program such as containerd reserves a lot of
    address space it never uses)."""
    die_with_parent()
    if resource is None:
        return
    try:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
    except (ValueError, OSError):
        pass
