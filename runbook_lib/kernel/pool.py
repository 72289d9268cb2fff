"""Kernels for a class: a fresh kernel per student, forked from one zygote and started ahead of need.

- **The zygote** (runbook_lib/kernel/zygote.py) imports ipykernel, IPython and the runbook once; every kernel is a
  fork of it, so a student's kernel costs a fork and ipykernel's set-up instead of a Python start-up and ~0.6 s of
  imports. A kernel serves one student and is then killed: nothing of one student (a module a cell imported, a
  variable, an environment variable, the current folder, an open file) can reach the next, whose kernel never
  ran anything but its own cells (tests/kernel/test_pool.py proves it with a notebook that leaves all of those
  behind).
- **Started ahead**: while a student's notebook runs, the next student's kernel is forked, set up and answering
  (jupyter_client's `wait_for_ready` includes 0.2 s of silence per kernel): it is ready when that student starts.
- **Replaced, not reused**: a kernel that dies or hangs costs only its own student (runbook_lib/grading/runner.py
  gives that student the reason); the next student takes the next kernel.
- Everything jupyter_client does for a kernel it launched still holds (`PooledKernelManager` is our
  RunbookKernelManager: IPC sockets in a private folder, the quick stop); only the launch is a fork instead of a
  Popen (`ForkedProvisioner`, jupyter_client's documented provisioner interface). A kernelspec the zygote did not
  import (another kernel, one with an environment of its own) is launched the usual way.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys

from jupyter_client.provisioning import LocalProvisioner

from runbook_lib.kernel.manager import RunbookKernelManager

STARTUP_SECONDS = 60


class ForkedProcess:
    """What jupyter_client's LocalProvisioner uses of a Popen, for a kernel that is the zygote's child: its end
    is what the zygote reports (only a parent can wait for a process)."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None
        self.ended = asyncio.Event()
        self.result: dict | None = None  # what a child of an in-process zygote reported (zygote.py, "run")

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        return self.returncode  # LocalProvisioner calls it once poll() says the process ended

    def send_signal(self, signum: int) -> None:
        if self.returncode is None:
            os.kill(self.pid, signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


class Zygote:
    """The grader's side of the zygote process: ask for a kernel, hear when one ends."""

    def __init__(self, process: asyncio.subprocess.Process, pid: int):
        self.process = process
        self.pid = pid
        self.env = os.environ.copy()
        self._replies: asyncio.Queue = asyncio.Queue()
        self._children: dict[int, ForkedProcess] = {}
        self._early_results: dict[int, dict] = {}  # a child's report can arrive before its pid does
        self._early_exits: dict[int, int] = {}
        self._reader = asyncio.ensure_future(self._read())
        self._lock = asyncio.Lock()

    @staticmethod
    async def spawn(in_process: str | None = None) -> asyncio.subprocess.Process:
        """The zygote's process, just started: it imports on its own while the caller goes on. ``in_process``:
        the module whose function runs a notebook in a forked child (zygote.py, `--in-process`)."""
        extra = ["--in-process", in_process] if in_process else []
        return await asyncio.create_subprocess_exec(
            sys.executable, "-m", "runbook_lib.kernel.zygote", *extra, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE)

    @classmethod
    async def start(cls, process: asyncio.subprocess.Process | None = None,
                    in_process: str | None = None) -> "Zygote | None":
        """Start the zygote (or take one `spawn` started earlier on this loop) and wait until it has imported
        everything; None when it cannot start."""
        try:
            process = process or await cls.spawn(in_process)
            line = await asyncio.wait_for(process.stdout.readline(), STARTUP_SECONDS)
            pid = json.loads(line)["ready"]
        except (OSError, ValueError, KeyError, TypeError, asyncio.TimeoutError):
            if process is not None and process.returncode is None:
                process.kill()  # started but never ready: not left behind
                await process.wait()
            return None
        return cls(process, pid)

    async def _read(self) -> None:
        while True:
            line = await self.process.stdout.readline()
            if not line:
                break
            message = json.loads(line)
            if "result" in message:
                pid = message.pop("result")
                if pid in self._children:
                    self._children[pid].result = message
                else:
                    self._early_results[pid] = message
            elif "exit" in message:
                child = self._children.pop(message["exit"], None)
                if child is not None:
                    child.returncode = message["status"]
                    child.ended.set()
                else:  # its pid is read, not yet taken by run(): a child that ended that quickly
                    self._early_exits[message["exit"]] = message["status"]
            else:
                self._replies.put_nowait(message)
        for child in self._children.values():  # the zygote is gone, and it took its children with it
            child.returncode = child.returncode if child.returncode is not None else -signal.SIGKILL
            child.ended.set()
        self._children.clear()
        self._replies.put_nowait({"error": "the kernel zygote ended"})

    def accepts(self, argv: list[str], launch_kw: dict) -> str | None:
        """Why this launch cannot be a fork of the zygote (None: it can). The interpreter's start-up reads the
        PYTHON* variables, so those must be the zygote's own; any Popen option but env and cwd is jupyter_client's
        to honour."""
        from runbook_lib.kernel.zygote import accepts

        if self._reader.done():
            return "the zygote ended"
        if not accepts(argv):
            return f"another kernel command: {argv}"
        env = launch_kw.get("env") or {}
        started = {k for k in set(env) | set(self.env) if k.startswith("PYTHON") and env.get(k) != self.env.get(k)}
        if started:
            return f"interpreter variables differ: {sorted(started)}"
        other = {k for k, v in launch_kw.items() if k not in ("env", "cwd") and v not in (None, False)}
        if other:
            return f"other launch options: {sorted(other)}"
        return None

    async def fork(self, argv: list[str], env: dict, cwd: str) -> ForkedProcess:
        async with self._lock:  # one request at a time: the replies come in order
            self.process.stdin.write((json.dumps({"argv": argv, "env": env, "cwd": cwd}) + "\n").encode())
            await self.process.stdin.drain()
            reply = await self._replies.get()
        if "pid" not in reply:
            raise RuntimeError(f"the kernel zygote could not start a kernel: {reply.get('error')}")
        child = ForkedProcess(reply["pid"])
        self._children[child.pid] = child
        return child

    async def run(self, target: str, args: dict, env: dict, cwd: str) -> ForkedProcess:
        """A child that runs ``target`` (MODULE:FUNCTION of the module the zygote was started --in-process with)
        on ``args``, in ``cwd`` with ``env``; its `result` is what it reported, its `ended` is set when it ends."""
        async with self._lock:
            self.process.stdin.write((json.dumps({"run": target, "args": args, "env": env, "cwd": cwd}) + "\n")
                                     .encode())
            await self.process.stdin.drain()
            reply = await self._replies.get()
        if "pid" not in reply:
            raise RuntimeError(f"the zygote could not start a run: {reply.get('error')}")
        child = ForkedProcess(reply["pid"])
        child.result = self._early_results.pop(child.pid, None)
        if child.pid in self._early_exits:
            child.returncode = self._early_exits.pop(child.pid)
            child.ended.set()
        elif self._reader.done():
            child.returncode = -signal.SIGKILL
            child.ended.set()
        else:
            self._children[child.pid] = child
        return child

    async def stop(self) -> None:
        """End the zygote: it kills every kernel it still has, then exits."""
        if self.process.returncode is None:
            try:
                self.process.stdin.close()
                await asyncio.wait_for(self.process.wait(), 30)
            except (OSError, asyncio.TimeoutError):
                self.process.kill()
                await self.process.wait()
        await self._reader


class ForkedProvisioner(LocalProvisioner):
    """LocalProvisioner whose launch is a fork of the zygote when the zygote can run that command; otherwise, and
    for everything after the launch, LocalProvisioner's own."""

    async def launch_kernel(self, cmd: list[str], **kwargs):
        km = self.parent
        zygote = getattr(km, "zygote", None)
        kw = self._scrub_kwargs(kwargs)
        km.fork_refused = zygote.accepts(list(cmd), kw) if zygote is not None else "no zygote"
        if km.fork_refused is not None:
            return await super().launch_kernel(cmd, **kwargs)
        cwd = os.path.realpath(kw.get("cwd") or os.getcwd())
        self.process = await zygote.fork(list(cmd), dict(kw.get("env") or os.environ), cwd)
        self.pid = self.pgid = self.process.pid  # the child made its own session, as start_new_session does
        self.cwd = cwd
        km.forked = True
        return self.connection_info

    async def wait(self) -> int | None:
        if isinstance(self.process, ForkedProcess):
            await self.process.ended.wait()  # the zygote's report, not LocalProvisioner's 0.1 s polling
        return await super().wait()


class PooledKernelManager(RunbookKernelManager):
    """RunbookKernelManager whose kernel is a fork of the zygote when the zygote can run it."""

    zygote: Zygote | None = None
    forked = False  # whether this kernel is a fork of the zygote (tests read it)
    fork_refused: str | None = None  # why not, when it is not

    async def _async_pre_start_kernel(self, **kw):
        if self.provisioner is None:
            import uuid

            self.kernel_id = self.kernel_id or str(uuid.uuid4())
            self.provisioner = ForkedProvisioner(kernel_id=self.kernel_id, kernel_spec=self.kernel_spec, parent=self)
        return await super()._async_pre_start_kernel(**kw)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        folder = None if restart else self._private_folder
        self._private_folder = None if folder else self._private_folder
        await super()._async_cleanup_resources(restart=restart)
        if folder:  # in a thread: on a busy disk, removing the sockets' folder took up to 0.15 s of the loop
            await asyncio.to_thread(shutil.rmtree, folder, True)

    cleanup_resources = _async_cleanup_resources


class Kernel:
    """One student's kernel: its manager and a client already connected and answered."""

    def __init__(self, km: PooledKernelManager, kc):
        self.km, self.kc = km, kc

    async def stop(self) -> None:
        """Never reused: killed (its student's outputs have all arrived), its sockets and folder removed."""
        try:
            self.kc.stop_channels()
        finally:
            if self.km.has_kernel:
                await self.km.shutdown_kernel(now=True)
            else:
                await self.km.cleanup_resources()


class KernelPool:
    """A kernel per student, `total` in all, `ahead` of them started before they are needed."""

    def __init__(self, kernel_name: str, total: int, ahead: int, zygote: Zygote | None,
                 startup_timeout: float = STARTUP_SECONDS, extra_arguments: list[str] | None = None):
        from runbook_lib.kernel import early as kernel_early

        self.kernel_name, self.zygote = kernel_name, zygote
        self.startup_timeout = startup_timeout
        self.extra_arguments = list(extra_arguments if extra_arguments is not None
                                    else kernel_early.KERNEL_EXTRA_ARGUMENTS)
        self._left = total
        self._ahead = max(0, ahead)
        self._started: list[asyncio.Future] = []
        self._stopping: set[asyncio.Future] = set()

    def _start_more(self, now: int = 0) -> None:
        while self._left > 0 and len(self._started) < self._ahead + now:
            self._left -= 1
            self._started.append(asyncio.ensure_future(self._start_one()))

    async def _start_one(self) -> Kernel:
        km = PooledKernelManager(kernel_name=self.kernel_name)
        km.zygote = self.zygote
        try:
            await km.start_kernel(extra_arguments=self.extra_arguments)
            kc = km.client()
            kc.start_channels()
            try:
                await kc.wait_for_ready(timeout=self.startup_timeout)
            except BaseException:
                kc.stop_channels()
                raise
            kc.allow_stdin = False
        except BaseException:
            if km.has_kernel:
                await km.shutdown_kernel(now=True)
            raise
        return Kernel(km, kc)

    async def take(self) -> Kernel:
        """The next kernel (raises what its start raised: that student's grade says why)."""
        self._start_more(now=1)  # this student's, if it was not started ahead
        started = self._started.pop(0)
        self._start_more()  # the next ones start now
        return await started

    def retire(self, kernel: Kernel) -> None:
        """Stop a student's kernel in the background: the student's notebook is written meanwhile."""
        stopping = asyncio.ensure_future(kernel.stop())
        self._stopping.add(stopping)
        stopping.add_done_callback(self._stopping.discard)

    async def close(self) -> None:
        """Stop every kernel still running: retired ones, and those started and not taken (an interrupted
        grading)."""
        await asyncio.gather(*list(self._stopping), return_exceptions=True)
        self._left = 0
        for started in self._started:
            started.cancel()
        for started in self._started:
            try:
                kernel = await started
            except BaseException:  # noqa: BLE001 - cancelled or failed: nothing left to stop
                continue
            await kernel.stop()
        self._started.clear()
