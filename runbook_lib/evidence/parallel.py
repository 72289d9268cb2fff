"""`runbook run --jobs N --root A --root B ...`: many roots, N runs at a time, none colliding with another.

- Processes, not threads: each run has its own papermill, kernel manager and event loop. The workers are
  forked after papermill and nbformat are imported once here, so a run pays only for its kernel and its
  cells (a worker runs several roots one after another).
- Kernel ports: every kernel talks over IPC sockets in a private temporary folder instead of TCP ports
  picked at random (papermill's `runbook` engine, runbook_lib/evidence/engine.py), so two kernels started at
  the same moment (here or by another `runbook run`) can never race for the same port.
- Locks: each root has its own lock file under the root; the same root twice is refused up front, since
  the second run would only wait for the first.
- Archives: each root gets its own label (runbook_lib.evidence.labels: its folder name, after `--label` when given,
  made longer when two roots share a folder name), so its runs sit in DIR/<label>/ and `runbook summary`
  shows one row per root.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Job:
    root: str
    label: str
    params: dict
    run_dir: Path | None = None  # runbook grade: DIR/<label>/ instead of a new timestamped folder
    kind: str = "run"  # the manifest's kind: "run" (hosts) or "grade" (students)


def labels_for(roots: list[str], prefix: str | None) -> list[str]:
    """One label per root, by the one rule of runbook_lib.evidence.labels."""
    from runbook_lib.evidence.labels import for_roots

    return for_roots(roots, prefix)


def run_one(notebook: Path, job: Job, archive: Path, version: str):
    """One root, as `runbook run` does it: papermill's execute_notebook, the stock kernel on private IPC sockets
    (runbook_lib/evidence/archive.py: execute)."""
    from runbook_lib.evidence.archive import execute

    from runbook_lib.engine.limits import parent_timeout

    try:
        return execute(notebook, job.params, archive, job.label, version, run_dir=job.run_dir, kind=job.kind,
                       execution_timeout=parent_timeout(job.params))
    except KeyboardInterrupt:
        # Ctrl-C stops nbclient mid-cell; the tasks it leaves would each log "Task exception was never retrieved"
        # with a traceback when collected. The command says "interrupted" once instead (runbook_lib/cli/main.py).
        import logging

        logging.getLogger("asyncio").disabled = True
        raise


def _preload() -> None:
    """Import what every run needs once, before the workers fork: none of them pays for it again."""
    import nbformat  # noqa: F401
    import papermill  # noqa: F401 - with nbclient, jupyter_client and its engines (ours among them)


def run_many(notebook: Path, jobs: list[Job], archive: Path, version: str, workers: int):
    """Yield (job, RunResult or the exception it raised) in the order of ``jobs``."""
    workers = max(1, min(workers, len(jobs)))
    if workers == 1:
        for job in jobs:
            try:
                yield job, run_one(notebook, job, archive, version)
            except Exception as exc:  # noqa: BLE001 - one root's crash must not hide the others' results
                yield job, exc
        return
    _preload()
    import multiprocessing
    import os

    from runbook_lib.fs.lifeline import die_with_parent

    ctx = multiprocessing.get_context("fork")
    # a worker (and through it its kernel) ends with this process, however it ends: runbook_lib/fs/lifeline.py
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=die_with_parent,
                             initargs=(os.getpid(),)) as pool:
        futures = [pool.submit(run_one, notebook, job, archive, version) for job in jobs]
        try:
            for job, fut in zip(jobs, futures):
                try:
                    yield job, fut.result()
                except Exception as exc:  # noqa: BLE001
                    yield job, exc
        except BaseException:
            # Ctrl-C (or the caller gone): the pool would start the roots still waiting, and its exit would wait
            # for them. The waiting ones are dropped and the workers end now, their kernels with them.
            pool.shutdown(wait=False, cancel_futures=True)
            for worker in multiprocessing.active_children():
                worker.kill()
            raise
