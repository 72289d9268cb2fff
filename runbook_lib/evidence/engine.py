"""papermill's `runbook` engine: papermill's own nbclient engine, with the kernel on private IPC sockets.

Registered through papermill's public entry point (`papermill.engine` in pyproject.toml), so
`papermill --engine runbook ...`, `execute_notebook(..., engine_name="runbook")`, `make run` and `runbook run`
(`--jobs` too) all run the notebook the same way: papermill's NBClientEngine, the stock `python3` kernel
(ipykernel), and one thing more, passed as nbclient's public `config`: the kernel manager's `transport = "ipc"`
with its sockets and connection file in a folder of this run's own (mode 0700), removed when the run ends.
Nothing is overridden but the engine's public `execute_managed_notebook`.

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


class RunbookEngine(NBClientEngine):
    @classmethod
    def execute_managed_notebook(cls, nb_man, kernel_name, **kwargs):
        if "config" in kwargs:  # the caller's own kernel manager configuration: as papermill would run it
            return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)
        folder = tempfile.mkdtemp(prefix="runbook-kernel-")
        try:
            if len(os.path.join(folder, "kernel-5")) <= _MAX_SOCKET_PATH:
                from traitlets.config import Config

                kwargs["config"] = Config({"KernelManager": {
                    "transport": "ipc", "ip": os.path.join(folder, "kernel"),
                    "connection_file": os.path.join(folder, "kernel.json")}})
            return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
