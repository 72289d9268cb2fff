"""`python -m runbook_lib.kernel.zygote`: the notebook's kernel imported once, then forked fresh for every student.

A kernel spends ~0.6 s of CPU importing ipykernel, IPython and the runbook before it runs a cell; a class of 24
paid that 24 times. This process (started once by the grader, runbook_lib/kernel/pool.py) does exactly what a
new `python -m runbook_lib.kernel` does before it serves (`kernel.prepare()`, then the same imports and warm-up),
and then only forks. Each child becomes one kernel (`kernel.serve()`) for one student and is never reused, so
nothing of one student can reach another: every student's kernel starts from this same state, which no notebook
ever ran in. Here no cell runs, no thread starts and no socket is opened, so forking is safe.

With `--in-process MODULE`, it also builds the kernel's shell once (runbook_lib/kernel/inprocess.py) and imports
MODULE (the grader's student run, runbook_lib/grading/student.py: named, not imported, so this layer stays below
it); then a request `{"run": "MODULE:FUNCTION", "args": {...}, "env": ..., "cwd": ...}` forks a child that calls
`FUNCTION(shell, args, report)` in that folder and environment and ends: one student's notebook executed in
process, without a kernel's sockets or a message round trip per cell. `report(dict)` sends
`{"result": PID, **dict}` to the grader (one line, written at once).

Protocol, one JSON object a line: on stdin `{"argv": [...], "env": {...}, "cwd": "..."}` (the command, environment
and folder jupyter_client would have launched the kernel with); on stdout `{"ready": PID}` once, then
`{"pid": N}` (or `{"error": "..."}`) for every request in order, and `{"exit": N, "status": CODE}` when a child
ends. End of stdin (the grader gone, whatever the way) kills every child's process group and ends this process.
"""

from __future__ import annotations

import gc
import json
import os
import select
import signal
import sys

# What a child runs: the kernelspec's command (runbook_lib/data/kernelspec/kernel.json) with the interpreter
# resolved, which is this process's own.
KERNEL_MODULE = "runbook_lib.kernel"


# What a kernel's set-up imports after ipykernel is imported (IPython's history and debugger, tornado's queues):
# found by listing a forked kernel's sys.modules against this process's. Imported here, they cost no kernel.
SET_UP_IMPORTS = ("sqlite3", "pdb", "faulthandler", "runpy", "unicodedata", "IPython.extensions", "ipykernel.debugger",
                  "tornado.gen", "tornado.locks", "tornado.queues", "tornado.platform")


def accepts(argv: list[str]) -> bool:
    """Whether ``argv`` is the kernel this process imported: the same interpreter running the same module."""
    return list(argv[:3]) == [sys.executable, "-m", KERNEL_MODULE] and "-f" in argv


def preload() -> None:
    from runbook_lib.kernel import app as kernel

    # Read by ipykernel when it is imported (IPKernelApp.parent_handle's default): the kernels' parent is this
    # process, as it is the launcher's in a kernel that starts on its own.
    os.environ["JPY_PARENT_PID"] = str(os.getpid())
    kernel.prepare()
    import importlib

    import ipykernel.ipkernel  # noqa: F401 - with IPython, zmq, tornado, jupyter_client
    import ipykernel.kernelapp  # noqa: F401
    import runbook_lib.kernel.shell  # noqa: F401 - the kernel's shell, on ipykernel's

    for name in SET_UP_IMPORTS:
        try:
            importlib.import_module(name)
        except ImportError:  # a kernel whose set-up does not need it imports nothing
            pass
    kernel.warm_up()


_shell = None  # the kernel's shell, built before any fork in --in-process mode
_kernel_like = 0.0  # MiB resident once that shell was built, before the grader's own imports


def preload_in_process(module: str) -> None:
    """The shell every child runs its cells in, and the module that runs them, ready before any fork."""
    global _shell
    import importlib

    from runbook_lib.engine.limits import rss_mib
    from runbook_lib.kernel.inprocess import build_shell

    global _kernel_like
    _shell = build_shell()
    _kernel_like = rss_mib()  # what a kernel holds before its first cell, near enough: the shell, the runbook
    warm = getattr(importlib.import_module(module), "zygote_warm", None)
    if warm is not None:
        warm()


def _send(fd: int, message: dict) -> None:
    data = (json.dumps(message) + "\n").encode()
    while data:
        data = data[os.write(fd, data):]


def _become_kernel(request: dict) -> None:
    """In the child: the environment and folder of the launch, then the kernel; never returns."""
    import atexit

    code = 1
    try:
        os.setsid()  # its own process group, as jupyter_client launches kernels (start_new_session)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        # ipykernel ends the kernel when the process that launched it is gone: that is this process, which
        # ends when the grader does.
        os.environ["JPY_PARENT_PID"] = str(os.getppid())
        from runbook_lib.kernel import app as kernel

        sys.argv = [kernel.__file__, *request["argv"][3:]]
        kernel.serve()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - said on stderr, as a kernel that fails to start says it
        import traceback

        traceback.print_exc()
    finally:
        try:
            atexit._run_exitfuncs()  # what the interpreter runs at exit (the kernel's own quick exit among them)
        finally:
            os._exit(code)


def _run_in_child(request: dict, replies: int, zygote: int) -> None:
    """In the child: the folder and environment of the request, then its function; never returns."""
    import atexit
    import importlib

    code = 1
    try:
        from runbook_lib.fs.lifeline import die_with_parent

        # first, and against the zygote's pid taken before the fork: a zygote that died in between is caught
        die_with_parent(zygote)  # a child outlives neither this process nor, through it, the grader
        os.setsid()  # its own process group: the grader stops it and whatever it started at once
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        from runbook_lib.engine.limits import OVERHEAD_MARK, rss_mib

        # resident in this child from its start and held by no kernel (the grader's papermill, nbclient, archive
        # renderer): the run's memory limit does not count it against the student (engine/limits.py)
        setattr(_shell, OVERHEAD_MARK, max(0.0, rss_mib() - _kernel_like))
        module, _, name = request["run"].partition(":")
        function = getattr(importlib.import_module(module), name)

        def report(message: dict) -> None:
            line = (json.dumps({"result": os.getpid(), **message}) + "\n").encode()
            os.write(replies, line)  # one write: lines of two children never interleave (under PIPE_BUF)

        function(_shell, request.get("args") or {}, report)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - said on the grader's stderr
        import traceback

        traceback.print_exc(file=sys.__stderr__)
    finally:
        try:
            atexit._run_exitfuncs()
        finally:
            os._exit(code)


def main() -> int:
    from runbook_lib.fs.lifeline import die_with_parent

    in_process = sys.argv[sys.argv.index("--in-process") + 1] if "--in-process" in sys.argv else None

    die_with_parent(os.getppid())  # the zygote, and through it every kernel it forked, ends with the grader
    requests, replies = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)  # the kernels read nothing from here
    os.dup2(2, 1)  # and what they print outside their cells goes where the grader's errors go
    os.close(devnull)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the grader's: it stops the kernels itself
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # wakes the select below when a kernel ends
    preload()
    if in_process:
        preload_in_process(in_process)
    gc.collect()
    gc.freeze()  # the collector never touches what every child shares: fewer pages copied after each fork
    _send(replies, {"ready": os.getpid()})
    children: set[int] = set()
    pending = b""
    try:
        while True:
            ready, _, _ = select.select([requests, wake_r], [], [])
            if wake_r in ready:
                os.read(wake_r, 4096)
            _reap(children, replies)
            if requests not in ready:
                continue
            chunk = os.read(requests, 65536)
            if not chunk:
                return 0
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                request = json.loads(line)
                if "run" in request:
                    if not in_process or not request["run"].startswith(in_process + ":"):
                        _send(replies, {"error": f"not this zygote's: {request['run']}"})
                        continue
                    zygote = os.getpid()
                    pid = os.fork()
                    if pid == 0:
                        for fd in (requests, wake_r, wake_w):
                            os.close(fd)
                        signal.set_wakeup_fd(-1)
                        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                        signal.signal(signal.SIGINT, signal.SIG_DFL)
                        _run_in_child(request, replies, zygote)
                    children.add(pid)
                    _send(replies, {"pid": pid})
                    continue
                if not accepts(request.get("argv") or []):
                    _send(replies, {"error": f"not this kernel: {request.get('argv')}"})
                    continue
                pid = os.fork()
                if pid == 0:
                    for fd in (requests, replies, wake_r, wake_w):
                        os.close(fd)
                    signal.set_wakeup_fd(-1)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    signal.signal(signal.SIGINT, signal.SIG_DFL)
                    _become_kernel(request)
                children.add(pid)
                _send(replies, {"pid": pid})
    finally:
        for pid in children:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass


def _reap(children: set[int], replies: int) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        children.discard(pid)
        _send(replies, {"exit": pid, "status": os.waitstatus_to_exitcode(status)})


if __name__ == "__main__":
    sys.exit(main())
