"""A class's notebooks, run by one process: `jobs` students at a time, each in a process of its own.

`runbook grade` and the class notebook (the same `grade_all`) run the runbook's notebook **in process**: each student
in a child forked from one zygote that imported everything and built the kernel's shell before any notebook ran
(runbook_lib/kernel/zygote.py `--in-process`, runbook_lib/kernel/inprocess.py). The child runs the student's cells
one by one in that shell, records every output as nbclient records a kernel's messages, writes the notebook and
archives it (student.py); no kernel is started and no message crosses a socket. What the grader does per student
is to ask for the child and wait for it:

- a cell that runs past ``timeout`` ends that student's run there (the child's own timer; finding
  grade.cell_timeout); a child that dies, or that a cell keeps past every cell's limit, is killed and graded from
  what it left (each cell as it ended, in its progress file; grade.kernel_died); the others go on in their own
  children;
- the run is archived as `runbook run` archives one (archive.keep: run.html, manifest.json).

A notebook whose kernel is not the runbook's (`--notebook` of another kernel) is run as before: nbclient over a
fresh kernel per student, forked from the zygote and started ahead of need (runbook_lib/kernel/pool.py), without
papermill's full save of the notebook around every cell; the notebook is written when the student's run starts
and once when it ends.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path

from runbook_lib.evidence.archive import NOTEBOOK_NAME, RunResult, keep, utc_now
from runbook_lib.grading.student import _text, _write_started, prepare

CELL_TIMEOUT = 300  # seconds; check mode only reads, a cell takes well under a second
log = logging.getLogger("runbook.grade")


async def _execute(nb, nb_man, kernel, timeout: float, root: str) -> dict | None:
    """Every cell in order, as papermill's client runs them; the error that ended the run early (None: a cell's
    own error, which papermill's marker below reports, or no error)."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    client = NotebookClient(nb, km=kernel.km, timeout=timeout, raise_on_iopub_timeout=True, log=log,
                            kernel_name=kernel.km.kernel_name)
    client.reset_execution_trackers()
    client.kc = kernel.kc
    error = None
    for index, cell in enumerate(nb.cells):
        try:
            nb_man.cell_start(cell, index)
            await client.async_execute_cell(cell, index)
        except CellExecutionError as exc:
            nb_man.cell_exception(nb.cells[index], cell_index=index, exception=exc)
            break
        except (CellTimeoutError, DeadKernelError, RuntimeError) as exc:
            nb_man.cell_exception(nb.cells[index], cell_index=index, exception=exc)
            if isinstance(exc, CellTimeoutError):
                error = {"kind": "timeout", "cell_index": index, "ename": "CellTimeoutError",
                         "evalue": _text("grade.cell_timeout", cell=index, seconds=timeout, root=root)}
            else:
                status = kernel.km.provisioner.process.returncode if kernel.km.provisioner.process else None
                error = {"kind": "kernel", "cell_index": index, "ename": type(exc).__name__,
                         "evalue": _text("grade.kernel_died", cell=index, status=status, root=root)}
            break
        finally:
            nb_man.cell_complete(nb.cells[index], cell_index=index)
    if error is None:
        reply = await kernel.kc.kernel_info(reply=True, timeout=timeout)
        nb.metadata["language_info"] = reply["content"]["language_info"]
    return error


async def grade_one(base, notebook: Path, job, pool, version: str, timeout: float) -> RunResult:
    from papermill.engines import NotebookExecutionManager
    from papermill.exceptions import PapermillExecutionError
    from papermill.execute import raise_for_execution_errors
    from papermill.iorw import write_ipynb

    started = utc_now()
    run_dir = Path(job.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    out_nb = run_dir / NOTEBOOK_NAME
    nb = prepare(base, notebook, job.params, out_nb)
    nb_man = NotebookExecutionManager(nb, output_path=None, progress_bar=False)
    nb_man.notebook_start()
    _write_started(nb, out_nb)  # from its start: a grading killed halfway still shows where it stopped
    error = None
    try:
        kernel = await pool.take()
    except Exception as exc:  # noqa: BLE001 - this student's kernel only: the next one has its own
        error = {"kind": "kernel", "ename": type(exc).__name__,
                 "evalue": _text("grade.kernel_not_started", reason=str(exc) or type(exc).__name__,
                                 python=sys.executable)}
    else:
        try:
            error = await _execute(nb, nb_man, kernel, timeout, job.root)
        finally:
            pool.retire(kernel)  # never reused
    nb_man.notebook_complete()
    try:
        raise_for_execution_errors(nb, str(out_nb))  # papermill's marker at the top, and the write, on a cell error
        write_ipynb(nb, str(out_nb))
    except PapermillExecutionError as exc:
        error = error or {"kind": "cell", "cell_index": exc.cell_index, "ename": exc.ename, "evalue": exc.evalue}
    return keep(run_dir, nb, label=job.label, notebook=notebook, parameters=job.params, started=started,
                ended=utc_now(), error=error, version=version, kind=job.kind)


def in_process(kernel_name: str) -> bool:
    """Whether a notebook of this kernel runs in process (student.py): only the runbook's own kernel, whose
    shell the zygote builds; any other kernel gets a kernel of its own from the pool below."""
    from runbook_lib.kernel.app import NAME

    return kernel_name.lower() == NAME


async def grade_in_process(notebook: Path, job, zygote, version: str, timeout: float, cells: int) -> RunResult:
    """One student in a child of the in-process zygote (student.py does the run, the writes and the archive).
    A child that dies, or outlives every cell's limit (a cell stuck where no signal reaches it), is graded here
    from what it left: its started notebook, the reason as its error."""
    import json
    import os
    import signal

    from runbook_lib.evidence.archive import MANIFEST_NAME
    from runbook_lib.grading.student import TARGET

    started = utc_now()
    args = {"notebook": str(notebook), "run_dir": str(job.run_dir), "root": job.root, "label": job.label,
            "kind": job.kind, "params": job.params, "version": version, "timeout": timeout}
    child = await zygote.run(TARGET, args, dict(os.environ), os.path.realpath(os.getcwd()))
    limit = timeout * (cells + 1)  # the child stops a cell at `timeout` itself; this is for one it cannot stop
    try:
        await asyncio.wait_for(child.ended.wait(), limit)
    except asyncio.TimeoutError:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except OSError:
            pass
        await child.ended.wait()
    except BaseException:  # cancelled (Ctrl-C): the child goes with the grading
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except OSError:
            pass
        raise
    run_dir = Path(job.run_dir)
    if child.result is not None and child.returncode == 0:
        manifest = json.loads((run_dir / MANIFEST_NAME).read_text(encoding="utf-8"))
        return RunResult(run_dir, manifest["ok"], manifest)
    from runbook_lib.grading.student import merge_progress

    nb = _started_notebook(notebook, job, run_dir)
    index = merge_progress(nb, run_dir)
    if nb is not None and index is not None:  # papermill's records of a cell that raised (cell_exception)
        nb.cells[index].metadata.setdefault("papermill", {}).update(exception=True, status="failed")
        nb.metadata.setdefault("papermill", {})["exception"] = True
    if nb is not None:  # as far as it ran, written as the pool's grading writes a dead kernel's notebook
        from papermill.iorw import write_ipynb

        write_ipynb(nb, str(run_dir / NOTEBOOK_NAME))
    error = {"kind": "kernel", "cell_index": index, "ename": "DeadKernelError",
             "evalue": _text("grade.kernel_died", cell=index, status=child.returncode, root=job.root)}
    return keep(run_dir, nb, label=job.label, notebook=notebook, parameters=job.params, started=started,
                ended=utc_now(), error=error, version=version, kind=job.kind)


def _started_notebook(notebook: Path, job, run_dir: Path):
    """The notebook as a dead child started it: the same preparation (papermill's parameters and records)."""
    from papermill.engines import NotebookExecutionManager
    from papermill.iorw import load_notebook_node

    try:
        nb = prepare(load_notebook_node(str(notebook)), notebook, job.params, run_dir / NOTEBOOK_NAME)
    except (OSError, ValueError):
        return None
    NotebookExecutionManager(nb, output_path=None, progress_bar=False).notebook_start()
    return nb


async def grade_all(notebook: Path, jobs: list, version: str, workers: int, timeout: float,
                    ahead: int | None = None, zygote_process=None) -> list:
    """(job, RunResult or the exception it raised) for every job, in order; `workers` students at a time."""
    from papermill.iorw import load_notebook_node

    from runbook_lib.kernel import early as kernel_early
    from runbook_lib.kernel.pool import KernelPool, Zygote

    base = load_notebook_node(str(notebook))  # read once, with papermill's own normalisation
    kernel_name = kernel_early.notebook_kernel_name(str(notebook)) or "python3"
    if in_process(kernel_name):
        return await _grade_all_in_process(notebook, base, jobs, version, workers, timeout, zygote_process)
    if zygote_process is not None and zygote_process.returncode is None:  # EarlyZygote's is in-process: not
        zygote_process.kill()  # one to fork kernels from (its shell is built); a fresh one is
        await zygote_process.wait()
    zygote = await Zygote.start()
    workers = max(1, min(workers, len(jobs)))
    # two kernels started ahead for each worker: a kernel's start (the fork, ipykernel's set-up, jupyter_client's
    # 0.2 s of silence) takes longer than a student's run (~0.25 s), so with one ahead a worker still waited for
    # its next kernel, ~1.7 s summed over a class of 24; with two, one is always ready (docs/BENCHMARKS.md, runs
    # G and I)
    pool = KernelPool(kernel_name, len(jobs), 2 * workers if ahead is None else ahead, zygote)
    results: list = [None] * len(jobs)
    queue = list(enumerate(jobs))

    async def worker() -> None:
        while queue:
            index, job = queue.pop(0)
            try:
                results[index] = await grade_one(base, notebook, job, pool, version, timeout)
            except Exception as exc:  # noqa: BLE001 - one student's crash must not hide the others' results
                results[index] = exc

    from runbook_lib.grading.output_schema import fast_output_checks

    try:
        with fast_output_checks():  # every output nbclient builds, checked by fastjsonschema (output_schema.py)
            await asyncio.gather(*(worker() for _ in range(workers)))
    finally:
        await pool.close()
        if zygote is not None:
            await zygote.stop()
    return list(zip(jobs, results))


async def _grade_all_in_process(notebook: Path, base, jobs: list, version: str, workers: int, timeout: float,
                                zygote_process=None) -> list:
    from runbook_lib.grading import student
    from runbook_lib.kernel.pool import Zygote

    zygote = await Zygote.start(zygote_process, in_process=student.__name__)
    if zygote is None:
        raise RuntimeError(_text("grade.kernel_not_started", reason="the in-process zygote did not start",
                                 python=sys.executable))
    cells = sum(1 for c in base.cells if c.cell_type == "code")
    workers = max(1, min(workers, len(jobs)))
    results: list = [None] * len(jobs)
    queue = list(enumerate(jobs))

    async def worker() -> None:
        while queue:
            index, job = queue.pop(0)
            try:
                results[index] = await grade_in_process(notebook, job, zygote, version, timeout, cells)
            except Exception as exc:  # noqa: BLE001 - one student's crash must not hide the others' results
                results[index] = exc

    try:
        await asyncio.gather(*(worker() for _ in range(workers)))
    finally:
        await zygote.stop()
    return list(zip(jobs, results))


class EarlyZygote:
    """`runbook grade`: the zygote started before the grader imports papermill and plans the class, so that its
    own imports (ipykernel, IPython, the runbook: ~0.45 s) run beside the grader's (~0.7 s) instead of after
    them. The zygote is started on the loop the grading later runs on (an asyncio.Runner kept for it); a
    command refused in between stops it (`close`), and a grader that dies closes its stdin, which ends it."""

    def __init__(self) -> None:
        from runbook_lib.kernel.pool import Zygote

        from runbook_lib.grading import student

        self.loop_runner = asyncio.Runner()
        try:  # the in-process zygote: the packaged notebook's kernel is the runbook's (runner.in_process)
            self.process = self.loop_runner.run(Zygote.spawn(in_process=student.__name__))
        except OSError:  # grade_all starts one itself, or grades without one
            self.process = None

    def run(self, coro):
        """Run the grading on the zygote's loop (Ctrl-C as asyncio.run: the grading cancelled, then raised)."""
        try:
            return self.loop_runner.run(coro)
        finally:
            self.close()  # grade_all stopped the zygote it took; one it never reached is stopped here

    def close(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.returncode is None:
            async def stop():
                process.stdin.close()  # end of stdin ends the zygote (runbook_lib/kernel/zygote.py)
                try:  # once it has imported and built its shell (a few seconds on a busy machine)
                    await asyncio.wait_for(process.wait(), 30)
                except asyncio.TimeoutError:
                    process.kill()
                    await process.wait()
            self.loop_runner.run(stop())
        self.loop_runner.close()


def run_class(notebook: Path, jobs: list, version: str, workers: int, timeout: float = CELL_TIMEOUT,
              early: EarlyZygote | None = None) -> list:
    """grade_all from synchronous code: a command (with the zygote it started early, if any), or a cell of the
    class notebook (whose kernel already runs an event loop in this thread, so the grading gets a thread and a
    loop of its own)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        if early is not None:
            return _interruptible(early.run, grade_all(notebook, jobs, version, workers, timeout,
                                                      zygote_process=early.process))
        return _interruptible(asyncio.run, grade_all(notebook, jobs, version, workers, timeout))
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, grade_all(notebook, jobs, version, workers, timeout)).result()


def _interruptible(run, coro):
    try:
        return run(coro)
    except KeyboardInterrupt:
        # Ctrl-C: asyncio.run cancelled the grading, whose finally blocks stopped every kernel and the zygote.
        # The tasks nbclient leaves would each log "Task exception was never retrieved" when collected; the
        # command says "interrupted" once instead (runbook_lib/cli/main.py).
        logging.getLogger("asyncio").disabled = True
        raise
