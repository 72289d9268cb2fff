"""Where plain papermill's time goes: one `papermill IN OUT -p root R` run, in whichever environment runs this
file, with timestamps around papermill's own phases (measurement only: the wrappers time and call through).

    <env>/bin/python bench/papermill_phases.py notebooks/run.ipynb out.ipynb -p root /tmp/lab

Prints one JSON object (seconds): interpreter start to papermill imported, reading and parameterizing the
notebook, kernel start until it answers, every cell's execution, papermill's notebook saves (count and total;
each is nbformat.writes, which validates the whole notebook, plus the file write), the kernel's shutdown, and
the whole command."""

from __future__ import annotations

import json
import sys
import time

T0 = time.perf_counter()
import papermill.cli  # noqa: E402
from jupyter_client.manager import AsyncKernelManager  # noqa: E402
from papermill import engines, execute  # noqa: E402
from papermill.clientwrap import PapermillNotebookClient  # noqa: E402

T_IMPORTED = time.perf_counter()
phases: dict[str, float] = {"import": T_IMPORTED - T0}
saves: list[float] = []
cells: list[float] = []


def timed(owner, name, into):
    original = getattr(owner, name)
    if hasattr(original, "__wrapped_for_bench__"):
        return

    if hasattr(original, "__code__") and original.__code__.co_flags & 0x80:  # a coroutine function
        async def wrapper(*a, **kw):
            t = time.perf_counter()
            try:
                return await original(*a, **kw)
            finally:
                into(time.perf_counter() - t)
    else:
        def wrapper(*a, **kw):
            t = time.perf_counter()
            try:
                return original(*a, **kw)
            finally:
                into(time.perf_counter() - t)
    wrapper.__wrapped_for_bench__ = True
    setattr(owner, name, wrapper)


def add(key):
    return lambda s: phases.__setitem__(key, phases.get(key, 0.0) + s)


timed(engines.NotebookExecutionManager, "save", saves.append)
timed(execute, "load_notebook_node", add("read"))
timed(execute, "parameterize_notebook", add("parameterize"))
# nbclient binds its sync names (run_sync of the async ones) at class creation: papermill calls these
timed(PapermillNotebookClient, "start_new_kernel", add("kernel_launch"))
timed(PapermillNotebookClient, "start_new_kernel_client", add("kernel_until_ready"))
timed(PapermillNotebookClient, "execute_cell", cells.append)
timed(AsyncKernelManager, "shutdown_kernel", add("kernel_shutdown"))

code = 0
try:
    papermill.cli.papermill.main(args=["--log-level", "WARNING", "--no-progress-bar", *sys.argv[1:]],
                                 prog_name="papermill", standalone_mode=True)
except SystemExit as exc:
    code = exc.code or 0
total = time.perf_counter() - T0
phases.update({"cells_n": len(cells), "cells_total": sum(cells), "saves_n": len(saves), "saves_total": sum(saves),
               "saves_max": max(saves, default=0.0), "total_after_interpreter": total, "rc": code,
               "each_cell": [round(c, 4) for c in cells], "each_save": [round(s, 4) for s in saves]})
print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in phases.items()}))
