"""One student's grade: the engine in check mode on the student's root, the verdict the notebook's check cells show.

`student(task)` is what a grading worker runs for each student (runbook_lib/grading/pool.py): the parameters
validated as the notebook's validation cell validates them, every step planned (nothing is written), then every
step's verdict in order (`Run.verdict`, which the notebook's check cells call; the pod step starts its pod there
when `smoke` asks for one, as the pod's action cell would). Its records are `StepResult.as_record()`, what the
notebook's summary holds. With `notebook` in the task (`runbook grade --notebooks`), the student's notebook is
then executed by stock papermill into DIR/<label>/run.ipynb, as evidence: the grade is the verdicts above either way.
Everything returned is plain data (a dict), sent back to the grader.
"""

from __future__ import annotations

import datetime as _dt
import os
from contextlib import contextmanager


# MiB resident in the grader when it forked its workers (grade.py sets it): what a kernel would hold before its run
FORKED_AT_MIB: float | None = None


class _OneCell:
    """What engine/limits.py arms a run's limits on, in a grading worker: a stand-in for the kernel's shell, the
    student's whole check one cell (the time counted from the arming). The memory counted is what a kernel would
    hold: the grader's when it forked (everything imported), and what this check takes on top. A forked worker's
    own resident memory is only the pages it has touched, so it is not that number."""

    runs_notebook_cells = True  # limits.IN_PROCESS_MARK

    def __init__(self):
        from runbook_lib.engine.limits import rss_mib

        self.events = self
        # limits.OVERHEAD_MARK: subtracted from the worker's resident memory
        self.grader_overhead_mib = rss_mib() - FORKED_AT_MIB if FORKED_AT_MIB is not None else 0.0

    def register(self, name, fn) -> None:  # no cells: the limits hold from arm() to disarm()
        pass

    def unregister(self, name, fn) -> None:
        pass


@contextmanager
def limited(seconds: int, mib: int):
    """The run's time and memory limits (its time_limit and memory_limit parameters), armed as the notebook's
    validation cell arms them: past one, the run stops with run.timeout or run.memory, naming the file read last."""
    import resource

    from runbook_lib.engine import limits

    shell = _OneCell()
    address_space = resource.getrlimit(resource.RLIMIT_AS)
    limits.arm(seconds, mib, shell)
    try:
        yield
    finally:
        limits.disarm(shell)
        resource.setrlimit(resource.RLIMIT_AS, address_space)  # a notebook's kernel started after this gets it back


def check(params: dict) -> dict:
    """The verdicts on params' root in check mode: {"ok", "steps"} (the summary's "ok" and "steps")."""
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run

    p = validate(**{**params, "mode": "check"})
    with limited(p.time_limit, p.memory_limit):
        run = Run(p)
        run.start()
        try:
            run.preflight()
            results = [run.verdict(step) for step in run.steps]
        finally:
            run.finish()
    return {"ok": run.ok(), "steps": [r.as_record() for r in results]}


def student(task: dict) -> dict:
    """One student: {"ok", "steps", "started_at", "notebook_error"}; task: {"params", "notebook", "out_nb",
    "timeout"} (notebook None: no notebook)."""
    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    graded = check(task["params"])
    graded["started_at"] = started
    graded["notebook_error"] = None
    if task.get("notebook"):
        graded["notebook_error"] = execute(task["notebook"], task["out_nb"], task["params"], task.get("timeout"))
    return graded


KERNELS_LOG = "kernels.log"  # DIR/kernels.log: what the students' kernels said on their stderr (--notebooks)


@contextmanager
def _stderr_to(path: str):
    """This worker's stderr, which the kernel papermill starts inherits, into ``path`` while the notebook runs:
    the kernels' own warnings go to DIR/kernels.log, not to the grader's terminal."""
    import sys

    sys.stderr.flush()
    log = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
    saved = os.dup(2)
    os.dup2(log, 2)
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(log)


def kernel_name(notebook: str) -> str:
    """The notebook's own kernel (its kernelspec), as papermill would pick it."""
    import json

    with open(notebook, encoding="utf-8") as f:
        return json.load(f).get("metadata", {}).get("kernelspec", {}).get("name") or "python3"


def execute(notebook: str, out_nb: str, params: dict, timeout: float | None) -> dict | None:
    """The student's notebook executed by stock papermill (its public execute_notebook) in the notebook's own
    kernel, through the `runbook` engine (evidence/engine.py): the pool starts kernels side by side, which over TCP
    could pick the same port; None when it ran to its end or a cell raised (a check cell of a failed step does, by design: the
    notebook shows it), else why it did not run ({"kind": "timeout" | "kernel", "ename", "evalue"})."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    from runbook_lib.evidence.archive import ENGINE_NAME
    from runbook_lib.notebook.session import TERMINAL

    os.environ[TERMINAL] = "0"  # the kernel prints no summary on the grader's terminal (notebook/session.py)
    os.makedirs(os.path.dirname(out_nb), exist_ok=True)
    try:
        with _stderr_to(os.path.join(os.path.dirname(os.path.dirname(out_nb)), KERNELS_LOG)):
            papermill.execute_notebook(notebook, out_nb, parameters={**params, "mode": "check"},
                                       kernel_name=kernel_name(notebook), engine_name=ENGINE_NAME, progress_bar=False,
                                       execution_timeout=timeout)
    except PapermillExecutionError:
        return None  # a cell raised: the executed notebook shows it, with papermill's marker at its top
    except Exception as exc:  # noqa: BLE001 - the evidence did not run; the grade above stands
        timed_out = type(exc).__name__ == "CellTimeoutError" or isinstance(exc, TimeoutError)
        return {"kind": "timeout" if timed_out else "kernel", "ename": type(exc).__name__,
                "evalue": str(exc) or type(exc).__name__}
    return None
