"""Students graded `jobs` at a time, each task in a worker process forked from this one after its imports.

The grader imports the engine once, then forks its workers (multiprocessing's 'fork' context): a worker starts with
everything imported and grades student after student, sending each result back as a plain dict. One student's task
is that student's alone:

- a task that raises is that student's error (its ename and evalue), and the worker goes on with the next;
- a task that runs past ``timeout`` seconds is stopped by the worker's own timer (SIGALRM): that student's error,
  kind "timeout";
- a worker that dies (a signal, os._exit) or that the timer cannot stop (a read stuck where no signal reaches it,
  still running ``timeout`` seconds after its own limit) is killed and replaced: the student it had gets the error,
  kind "kernel", and every other student goes on in the new worker.

Only the standard library: the task is a module-level function, its argument and its result picklable.
"""

from __future__ import annotations

import os
import signal
import time
from typing import Callable, Iterator

# the worker's own limit came and went and the task is still running: the parent waits this much longer
GRACE = 5.0


class TaskTimeout(Exception):
    """The worker's timer: the task ran past its time."""


def _alarm(signum, frame):
    raise TaskTimeout()


def _serve(conn, fn: Callable, timeout: float | None, parent: int, retire_mib: float | None) -> None:
    """A worker: task after task from the parent, each result sent back, until the parent sends None, or until a
    task left it holding ``retire_mib`` MiB more than when it started (a root that took memory to judge: the next
    student gets a fresh worker, not what is left of it). It ends with the parent, however that ends (SIGKILL included:
    fs/lifeline.py)."""
    from runbook_lib.fs.lifeline import die_with_parent

    die_with_parent(parent)
    signal.signal(signal.SIGALRM, _alarm)
    born = _rss_mib()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        if message is None:
            return
        index, task = message
        started = time.monotonic()
        try:
            if timeout:
                signal.setitimer(signal.ITIMER_REAL, timeout)
            result = ("ok", fn(task))
        except TaskTimeout:
            result = ("timeout", {"seconds": timeout})
        except BaseException as exc:  # noqa: BLE001 - this student's error, never the worker's end
            result = ("error", {"ename": type(exc).__name__, "evalue": _said(exc)})
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        retire = bool(retire_mib) and _rss_mib() - born > retire_mib
        try:
            conn.send((index, result, time.monotonic() - started, retire))
        except TaskTimeout:  # the timer fired between the task's end and the disarming: the result stands
            conn.send((index, result, time.monotonic() - started, retire))
        if retire:
            return


def _rss_mib() -> float:
    with open("/proc/self/statm", "rb") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)


def _said(exc: BaseException) -> str:
    """An exception's words: a RunbookError's finding rendered whole (what, where, fix), else str()."""
    render = getattr(exc, "render", None)
    if callable(render):
        try:
            return str(render())
        except Exception:  # noqa: BLE001
            pass
    return str(exc) or type(exc).__name__


class _Worker:
    def __init__(self, context, fn, timeout, retire_mib=None):
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, fn, timeout, os.getpid(), retire_mib),
                                       daemon=True)
        self.process.start()
        child.close()
        self.task: int | None = None
        self.since = 0.0

    def give(self, index: int, task) -> None:
        self.task, self.since = index, time.monotonic()
        try:
            self.conn.send((index, task))
        except OSError:  # the worker ended meanwhile: its sentinel says so, and this task is said as its death
            pass

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass

    def kill(self) -> int | None:
        try:
            self.process.kill()
        except OSError:
            pass
        self.process.join()
        self.conn.close()
        return self.process.exitcode


def run(fn: Callable, tasks: list, jobs: int, timeout: float | None = None,
        retire_mib: float | None = None) -> Iterator[tuple[int, str, object, float]]:
    """(index, kind, value, seconds) for every task, as they end: kind "ok" with fn's result, else "error",
    "timeout" or "kernel" with a dict saying why ({"ename", "evalue"}, {"seconds"}, {"status"}). A worker that
    grew by more than ``retire_mib`` MiB is replaced by a fresh one after its task."""
    import ctypes  # noqa: F401 - the workers' die_with_parent uses it: imported once, before they fork
    import multiprocessing
    from multiprocessing.connection import wait

    if not tasks:
        return
    ended = False
    context = multiprocessing.get_context("fork")
    import gc

    gc.freeze()  # what is imported so far stays shared with the workers: their collections do not copy it
    pending = list(enumerate(tasks))[::-1]
    spawn = lambda: _Worker(context, fn, timeout, retire_mib)  # noqa: E731
    workers = [spawn() for _ in range(max(1, min(jobs, len(tasks))))]
    busy: dict[object, _Worker] = {}
    try:
        for w in workers:
            if pending:
                w.give(*pending.pop())
                busy[w.conn] = w
        while busy:
            limit = None
            if timeout:
                limit = max(0.0, min(w.since for w in busy.values()) + timeout + GRACE - time.monotonic())
            sentinels = {w.process.sentinel: w for w in busy.values()}
            ready = wait(list(busy) + list(sentinels), limit)
            done: list[_Worker] = []  # the workers free for a next task (a dead one's replacement among them)
            handled: set[int] = set()
            for ready_one in ready:
                w = busy.get(ready_one) or sentinels.get(ready_one)
                if w is None or id(w) in handled:  # a dead worker is ready twice: its pipe and its sentinel
                    continue
                handled.add(id(w))
                try:
                    index, (kind, value), seconds, retire = w.conn.recv()
                except (EOFError, OSError):  # the worker died with this student's task
                    index, seconds = w.task, time.monotonic() - w.since
                    kind, value = "kernel", {"status": w.kill()}
                    w = _replace(workers, w, spawn)
                else:
                    if retire:  # it ends by itself: a fresh one for the next task
                        w.process.join(timeout=5)
                        w.kill()
                        w = _replace(workers, w, spawn)
                done.append(w)
                yield index, kind, value, seconds
            now = time.monotonic()
            for w in list(busy.values()):
                if timeout and id(w) not in handled and now - w.since > timeout + GRACE:  # no signal reached it
                    index, seconds = w.task, now - w.since
                    w.kill()
                    done.append(_replace(workers, w, spawn))
                    busy.pop(w.conn, None)
                    yield index, "timeout", {"seconds": timeout}, seconds
            busy = {w.conn: w for w in busy.values() if id(w) not in handled and not w.conn.closed}
            for w in done:
                if pending:
                    w.give(*pending.pop())
                    busy[w.conn] = w
        ended = True
    finally:  # every task done: each worker told to end; stopped midway (Ctrl-C, an error): each killed now
        for w in workers:
            if ended:
                w.stop()
        for w in workers:
            if ended:
                w.process.join(timeout=5)
            if w.process.is_alive():
                w.kill()
        gc.unfreeze()


def _replace(workers: list, dead: _Worker, spawn) -> _Worker:
    fresh = spawn()
    workers[workers.index(dead)] = fresh
    return fresh
