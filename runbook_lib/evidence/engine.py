"""papermill's `runbook` engine: papermill's own nbclient engine, with the kernel on private IPC sockets.

Registered through papermill's public entry point (`papermill.engine` in pyproject.toml), so
`papermill --engine runbook ...`, `execute_notebook(..., engine_name="runbook")`, `make run` and `runbook run`
(`--jobs` too) all run the notebook the same way: papermill's NBClientEngine, the stock `python3` kernel
(ipykernel), and two things more, passed as nbclient's public `config`: the kernel manager's `transport = "ipc"`
with its sockets and connection file in a folder of this run's own (mode 0700), removed when the run ends, and its
`shutdown_wait_time` (SHUTDOWN_WAIT below).
Nothing is overridden but the engine's public `execute_managed_notebook` and, for the run, its execution
manager's public `save` (below).

Saves: papermill writes the whole notebook at every cell's start and end (79 writes for run.ipynb, each
validated and encoded afresh: 0.3 s of the runner's 1.5 s of CPU on a lab root). While the cells run, this engine
lets the execution manager's public `save` write at most once every SAVE_EVERY seconds (papermill's own autosave
during a long cell goes through it too); papermill's last save, when the run ends however it ends, always writes.
A run killed outright loses at most that last second of its notebook.

Why IPC: over TCP, jupyter_client picks five free ports at random and frees them before the kernel binds them, so
two kernels started at the same moment (`runbook run --jobs N`, or two runs on one machine) can pick the same
port; and ipykernel 7 warns on every TCP start that it runs without encryption. A folder whose socket paths would
be too long for AF_UNIX (a very long TMPDIR) leaves jupyter_client's defaults (TCP).

papermill imports this module while `papermill.engines` is still being imported (its entry points are loaded at
the end of that module, once NBClientEngine is defined): nothing of ours imports it directly, and its name is
archive.ENGINE_NAME (tests/cli/test_runner.py holds the entry point to it).
"""

from __future__ import annotations

import os
import shutil
import tempfile

from papermill.engines import NBClientEngine

_MAX_SOCKET_PATH = 100  # AF_UNIX paths are limited to 107 bytes; the longest is "<folder>/kernel-5"
SAVE_EVERY = 1.0  # seconds between two writes of the notebook while its cells run
# jupyter_client asks the kernel to shut down, waits half of shutdown_wait_time for it to end, then SIGTERMs it.
# ipykernel 7.4 does not end by itself in about one run in ten (its control thread flushes stdout into the IOPub
# thread the main thread has just stopped: docs/BENCHMARKS.md), and the run then waited 2.5 s (the default 5 s)
# for nothing. The kernel has sent its last output and its shutdown reply by then; it ends in ~0.1 s otherwise.
SHUTDOWN_WAIT = 1.0


def _saves_at_most_every(nb_man, seconds: float):
    """Make ``nb_man.save`` write only when ``seconds`` have passed since its last write; returns the undo."""
    import time

    save = nb_man.save
    last = [float("-inf")]

    def throttled(**kwargs):
        now = time.monotonic()
        if kwargs.get("nb"):  # save(nb=...) also hands over a new notebook object: taken even when not written
            nb_man.nb = kwargs["nb"]
        if now - last[0] >= seconds:
            save(**kwargs)
            last[0] = time.monotonic()

    nb_man.save = throttled
    return lambda: setattr(nb_man, "save", save)


class RunbookEngine(NBClientEngine):
    @classmethod
    def execute_managed_notebook(cls, nb_man, kernel_name, **kwargs):
        undo = _saves_at_most_every(nb_man, SAVE_EVERY)  # papermill's notebook_complete, after this, saves
        try:
            return cls._execute(nb_man, kernel_name, **kwargs)
        finally:
            undo()

    @classmethod
    def _execute(cls, nb_man, kernel_name, **kwargs):
        if "config" in kwargs:  # the caller's own kernel manager configuration: as papermill would run it
            return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)
        from traitlets.config import Config

        folder = tempfile.mkdtemp(prefix="runbook-kernel-")
        try:
            manager = {"shutdown_wait_time": SHUTDOWN_WAIT}
            if len(os.path.join(folder, "kernel-5")) <= _MAX_SOCKET_PATH:
                manager.update({"transport": "ipc", "ip": os.path.join(folder, "kernel"),
                                "connection_file": os.path.join(folder, "kernel.json")})
            kwargs["config"] = Config({"KernelManager": manager})
            return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
