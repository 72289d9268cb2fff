"""Every run bounded: a time limit and a memory limit, armed in the kernel (or the grader's in-process shell)
by the validation cell (nb.start).

The limits hold for a notebook run by plain papermill as for `runbook run` and `runbook grade` (which pass
`--timeout` and `--memory` as the parameters time_limit and memory_limit), with the same words: a cell that
goes beyond one stops with the finding ``run.timeout`` or ``run.memory``, which names the file the run read
last, and the notebook stops there as at any failed cell.

- **Time** counts only while a cell runs (IPython's pre_run_cell/post_run_cell events), so a notebook left
  open in JupyterLab between two cells never runs out of it.
- **Memory** is the kernel's resident memory (RSS, from /proc/self/statm), looked at by the cell's own thread
  after every 10 ms of the kernel's CPU time while a cell runs (a profiling timer, ITIMER_PROF), and every 50 ms
  by a watchdog thread. The timer is what keeps the stop in step with a cell that allocates fast on a busy
  machine: a watchdog thread waits for the interpreter's lock and for a core, the CPU timer does not, and a cell
  allocates only while it has CPU time (a watchdog alone let a loop of 1 MiB blocks overshoot by 125 MiB with
  three busy processes beside it, and under CI's load reach the backstop: a bare MemoryError, not the words).
  Why not RLIMIT_AS alone: the kernel's address space is ~0.9 GB before its first cell while only
  ~55 MB of it is resident (thread stacks, malloc arenas, libzmq), so an address-space limit either stops
  nothing or stops a normal run; and a cgroup needs systemd's delegation, which a student's JupyterLab does not
  have. RLIMIT_AS stays as a backstop set well above the limit (an allocation between two looks cannot take
  the machine); helper programs get it back (runbook_lib.fs.lifeline.child_preexec).
- The watchdog stops the cell by a signal to the main thread (its handler raises RunStopped), again every second
  while the cell goes on (code that caught it), and ends the kernel GRACE seconds later. C code that looks at
  signals (a regular expression backtracking for ever) is stopped so too: the profiling timer's handler lets the
  watchdog run. A cell stuck in C code that holds the GIL and never looks at signals (a builtin walking an
  endless iterator) lets no Python thread run at all: for that,
  RLIMIT_CPU is set to the CPU time used so far plus the time limit and GRACE, and the operating system ends
  the kernel (SIGXCPU). papermill reports a dead kernel, and the command says why (run.kernel_died).
"""

from __future__ import annotations

import os
import signal
import threading
import time

from runbook_lib.findings.errors import RunbookError
from runbook_lib.fs import bounded_read
from runbook_lib.findings.problem import words
from runbook_lib.findings.text import text
from runbook_lib.findings.problem import Problem

DEFAULT_TIME_LIMIT = 300  # seconds: a run takes 3-10 s
DEFAULT_MEMORY_LIMIT = 768  # MiB: a run's kernel holds about 60 MiB
GRACE = 10.0  # seconds a cell has to stop once told to, before the kernel ends
_POLL = 0.05
_SIGNAL = signal.SIGUSR2
_SAMPLE = 0.01  # seconds of the kernel's CPU time between two looks at its memory from the cell's own thread


class RunStopped(BaseException):
    """The run went beyond its time or memory limit. A BaseException, as KeyboardInterrupt is: no step's
    `except RunbookError` or `except Exception` may take it for a finding of its own and go on."""

    def __init__(self, error: RunbookError):
        super().__init__(error.render())
        self.error, self.code = error, error.code

    def _render_traceback_(self) -> list[str]:
        return self.error.render().split("\n")


def stopped(code: str, **values) -> RunStopped:
    reading = bounded_read.last_read or "-"
    what, fix, _ = words(code, reading=reading, **values)
    return RunStopped(RunbookError(what, fix, path=bounded_read.last_read, code=code))


def rss_mib() -> float:
    with open("/proc/self/statm", "rb") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)


class _Guard:
    def __init__(self, seconds: float, mib: int, shell):
        self.seconds, self.mib, self.shell = float(seconds), int(mib), shell
        self.used = 0.0             # cell time spent so far
        self.cell_started: float | None = None
        self.reason: str | None = None
        self.told_at: float | None = None
        self.signalled = 0.0
        self.stopping = False       # a stop was raised: the run ends with this cell
        self.cpu_before = None      # RLIMIT_CPU as it was before arm()
        self.main = threading.main_thread().ident
        self.alive = True
        # resident memory that is not the run's: what a graded student's in-process child holds that no kernel does
        self.overhead = float(getattr(shell, OVERHEAD_MARK, 0.0) or 0.0)

    def pre(self, *_):
        self.cell_started = time.monotonic()
        _sampling(True)

    def post(self, *_):
        _sampling(False)
        if self.stopping:  # the run ended here; the validation cell run again arms new limits
            disarm(self.shell)
        if self.cell_started is not None:
            self.used += time.monotonic() - self.cell_started
        self.cell_started = None
        self.reason, self.told_at = None, None

    def over(self) -> str | None:
        if self.cell_started is None:
            return None
        if self.used + time.monotonic() - self.cell_started > self.seconds:
            return "run.timeout"
        if rss_mib() - self.overhead > self.mib:
            return "run.memory"
        return None

    def watch(self):
        """Tell the main thread once a limit is passed, again every second while the cell still runs (code that
        caught the first one), and end the kernel when it has not stopped after GRACE seconds."""
        while self.alive:
            time.sleep(_POLL)
            now = time.monotonic()
            if self.reason is None:
                self.reason = self.over()
                if self.reason is None:
                    continue
                self.told_at = now
            elif self.cell_started is None:
                continue
            elif now - self.told_at > GRACE:
                os.write(2, f"runbook: {self.reason}: the cell did not stop, ending the kernel\n".encode())
                os._exit(1)
            elif now - self.signalled < 1.0:
                continue
            self.signalled = now
            signal.pthread_kill(self.main, _SIGNAL)

    def sample(self, *_):
        """The profiling timer's handler, in the cell's own thread: past the memory limit, the cell stops here."""
        if self.reason is not None or self.cell_started is None or not self.alive:
            return  # already told (the watchdog tells again every second), or no cell runs
        if rss_mib() - self.overhead > self.mib:
            self.reason = "run.memory"
            self.told_at = self.signalled = time.monotonic()
            self.raise_it()

    def raise_it(self, *_):
        reason = self.reason
        if reason is None or self.cell_started is None or not self.alive:
            return  # a late signal after the cell ended: nothing to stop
        self.stopping = True
        raise stopped(reason, seconds=int(self.seconds), mib=self.mib)


_guard: _Guard | None = None


def arm(seconds: float = DEFAULT_TIME_LIMIT, mib: int = DEFAULT_MEMORY_LIMIT, shell=None) -> bool:
    """Arm the limits in this kernel, or in the in-process shell a graded student runs in (again: new limits, the
    time counted from now). Outside a notebook's run (a test, a script) nothing is armed: the limits are the
    notebook's. True when armed."""
    global _guard
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:  # pragma: no cover - ipykernel is a dependency
            return False
        shell = get_ipython()
    if not runs_notebook_cells(shell) or threading.current_thread() is not threading.main_thread():
        return False
    disarm(shell)
    guard = _Guard(seconds, mib, shell)
    guard.cell_started = time.monotonic()  # the validation cell itself counts
    signal.signal(_SIGNAL, guard.raise_it)
    signal.signal(signal.SIGPROF, guard.sample)
    shell.events.register("pre_run_cell", guard.pre)
    shell.events.register("post_run_cell", guard.post)
    _backstop(mib)
    guard.cpu_before = _cpu_backstop(seconds)
    threading.Thread(target=guard.watch, name="runbook-limits", daemon=True).start()
    _guard = guard
    _sampling(True)
    return True


def _sampling(on: bool) -> None:
    """Start or stop the profiling timer that has the cell's own thread look at its memory (Guard.sample). Its
    signal's handler stays installed while the timer is off: a SIGPROF left pending is then taken, not fatal."""
    signal.setitimer(signal.ITIMER_PROF, _SAMPLE if on else 0, _SAMPLE if on else 0)


OVERHEAD_MARK = "grader_overhead_mib"  # on that shell: MiB resident in the process that are not the run's
IN_PROCESS_MARK = "runs_notebook_cells"  # set on a grading worker's stand-in shell (runbook_lib/grading/verdicts.py)


def runs_notebook_cells(shell) -> bool:
    """Whether ``shell`` runs a notebook's cells: a kernel's, or the stand-in a grading worker judges a student's
    root under (grading/verdicts.py). Not a terminal IPython, nor a test's shell."""
    if shell is None:
        return False
    return getattr(shell, "kernel", None) is not None or getattr(shell, IN_PROCESS_MARK, False) is True


def disarm(shell=None) -> None:
    global _guard
    guard, _guard = _guard, None
    if guard is None:
        return
    guard.alive = False
    _sampling(False)
    signal.signal(signal.SIGPROF, signal.SIG_IGN)
    _restore_cpu(guard.cpu_before)
    shell = shell or guard.shell
    if shell is not None:
        for name, fn in (("pre_run_cell", guard.pre), ("post_run_cell", guard.post)):
            try:
                shell.events.unregister(name, fn)
            except ValueError:
                pass


def _backstop(mib: int) -> None:
    """RLIMIT_AS at the address space in use now plus twice the limit: never reached by a run that keeps to its
    memory limit, and a bound on what one allocation between two looks of the watchdog can take."""
    try:
        import resource

        with open("/proc/self/statm", "rb") as f:
            size = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        soft = size + 2 * mib * 1024 * 1024
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    except (ImportError, OSError, ValueError):
        pass


def _given(params: dict, name: str, default: int) -> int:
    """The limit as the kernel's validation will read it (params.whole_number), else the default: the kernel's
    validation cell says what is wrong with it."""
    from runbook_lib.engine.params import whole_number

    number = whole_number(params.get(name, default))
    return default if number is None else number


def parent_timeout(params: dict) -> int:
    """nbclient's timeout for one cell, on the parent's side: the kernel's own time limit, then GRACE for the
    cell to stop, then a margin. Reached only by a kernel that could not stop itself (stuck in C code)."""
    return _given(params, "time_limit", DEFAULT_TIME_LIMIT) + int(GRACE) + 30


def explain_dead(exc: BaseException, params: dict) -> str | None:
    """For papermill's DeadKernelError or nbclient's CellTimeoutError: the finding's words (run.kernel_died),
    both languages. None for any other error."""
    if type(exc).__name__ not in ("DeadKernelError", "CellTimeoutError"):
        return None

    return text(Problem.of("run.kernel_died", seconds=_given(params, "time_limit", DEFAULT_TIME_LIMIT)).as_dict())


def _cpu_backstop(seconds: float):
    """RLIMIT_CPU at the CPU time used so far plus the time limit and GRACE; the limit it replaces, or None."""
    try:
        import resource

        before = resource.getrlimit(resource.RLIMIT_CPU)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        soft = int(usage.ru_utime + usage.ru_stime + seconds + GRACE) + 1
        if before[1] != resource.RLIM_INFINITY:
            soft = min(soft, before[1])
        resource.setrlimit(resource.RLIMIT_CPU, (soft, before[1]))
        return before
    except (ImportError, OSError, ValueError):
        return None


def _restore_cpu(before) -> None:
    if before is None:
        return
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_CPU, before)
    except (ImportError, OSError, ValueError):
        pass
