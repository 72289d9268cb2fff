"""The runbook's kernel: ipykernel's own IPython kernel, started without its debugger.

The notebook names this kernelspec (`nvidia-runbook`, installed with the package into
`<prefix>/share/jupyter/kernels/`), so a plain `papermill notebooks/run.ipynb ...` starts it. It is the stock
`python -m ipykernel_launcher` except for what papermill waits for at its start and at its end:

- debugpy is not imported. ipykernel imports it at every start (~0.1 s of CPU, and the exit takes longer with
  it) only to offer JupyterLab's visual debugger; a runbook run never uses it. ipykernel imports debugpy
  inside `try: ... except ImportError`, so marking it absent (`sys.modules["debugpy"] = None`, the import
  system's documented way) leaves a kernel that says it has no debugger. ipykernel is bounded in
  pyproject.toml to the major versions that do this; tests/kernel/test_app.py checks it. (ipykernel's occasional
  2.5 s hang on its way out came with debugpy too: docs/BENCHMARKS.md, "What is left".)
- no `-Xfrozen_modules=off`: the stock kernelspec turns frozen modules off for debugpy's sake.
- once the kernel has answered its first `kernel_info`, a background thread imports what the runbook's first
  cell needs (runbook_lib and its steps, YAML, tomlkit, the CDI schema's validator). jupyter_client calls a
  kernel ready only after 0.2 s without a message from it, then papermill saves the notebook six times and
  runs the two parameters cells: the kernel would sit idle all that time, and the imports run then instead of
  inside the first cell (which went from ~0.10 s to ~0.04 s). Python's per-module import locks make the cell's own import wait for a module
  the thread is still importing; if the warm-up fails, the cell's import says why.
- its shell (shell.py) skips three costs a runbook cell paid for nothing: a flush of stdout and stderr with
  nothing written before every display, a pure-Python hash of every cell for the debugger it does not have,
  and tokenizing a cell that holds none of IPython's own syntax.
- after a normal shutdown, once every exit handler has run (IPython's history among them), the process ends
  with `os._exit` instead of tearing the interpreter down module by module (~0.1 s with everything a run has
  loaded). jupyter_client checks every 0.1 s whether a stopping kernel is gone, so that is one check instead
  of two. A kernel that ends any other way (an error, a signal) exits as usual, with its own status.

To debug a cell in JupyterLab, switch the notebook's kernel to the stock "Python 3 (ipykernel)".

`python -m runbook_lib.kernel install [--user | --prefix DIR]` installs the kernelspec where an editable
install (`pip install -e`, which setuptools installs without data files) does not put it.
"""

from __future__ import annotations

import atexit
import os
import sys
from importlib import resources
from pathlib import Path

NAME = "nvidia-runbook"


def spec_dir() -> Path:
    return Path(str(resources.files("runbook_lib") / "data" / "kernelspec"))


def explain_missing(exc: BaseException) -> str | None:
    """For jupyter_client's NoSuchKernel (which names the kernel, not the fix): what to tell the user, in both
    languages, with the fix. None for any other error."""
    if type(exc).__name__ != "NoSuchKernel":
        return None
    from runbook_lib.findings.text import text
    from runbook_lib.findings.problem import Problem

    name = getattr(exc, "name", "") or str(exc)
    return text(Problem.of("kernel.missing", kernel=name, python=sys.executable).as_dict())


def install(argv: list[str]) -> int:
    import argparse

    from jupyter_client.kernelspec import KernelSpecManager

    from runbook_lib.findings.catalog import say
    from runbook_lib.findings.messages import bilingual

    ap = argparse.ArgumentParser(prog="python -m runbook_lib.kernel install",
                                 description=bilingual(say("kernel.install.description", name=NAME)))
    where_to = ap.add_mutually_exclusive_group()
    where_to.add_argument("--user", action="store_true", help=bilingual(say("kernel.install.user")))
    where_to.add_argument("--prefix", help=bilingual(say("kernel.install.prefix")))
    args = ap.parse_args(argv)
    prefix = None if args.user else (args.prefix or sys.prefix)
    where = KernelSpecManager().install_kernel_spec(str(spec_dir()), NAME, user=args.user, prefix=prefix)
    print(f"{bilingual(say('kernel.install.done'))}: {NAME} → {where}")
    return 0


def warm_up() -> None:
    try:
        import runbook_lib.notebook  # noqa: F401
        import runbook_lib.steps  # noqa: F401 - every step
        import tomlkit  # noqa: F401
        import yaml  # noqa: F401

        from runbook_lib.cdi.validate import schema_check
        from runbook_lib.findings.catalog import catalog
        from runbook_lib.engine import check_cells
        from runbook_lib.steps import STEPS
        schema_check()
        for step in STEPS:  # the check cells the preflight runs on the planned state
            if step.check:
                check_cells.compiled(step)
        catalog()  # every sentence the cells say: ~75 ms of YAML, read here instead of in the first cell
    except Exception:  # noqa: BLE001 - the first cell imports these again and reports what is wrong
        pass


_shut_down_cleanly = False


def _skip_teardown() -> None:
    """Registered before ipykernel and IPython register theirs, so it runs after them (atexit is last in,
    first out): nothing is left to do but the interpreter's teardown, which nobody waits for."""
    if _shut_down_cleanly:
        exit_without_teardown(0, (sys.__stdout__, sys.__stderr__))


def exit_without_teardown(code: int, streams) -> None:
    """End the process with ``code`` once ``streams`` are flushed, without tearing the interpreter down module by
    module (the exit handlers have run): the kernel after its shutdown, the runner after its run."""
    for stream in streams:
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(code)


def prepare() -> None:
    """What the kernel does before it imports ipykernel; the grader's zygote (runbook_lib/kernel/zygote.py) does
    it once, then imports, then forks a kernel per student that only runs `serve()`."""
    # as ipykernel_launcher does: the working folder leaves sys.path while the kernel loads, and
    # IPython puts it back for the cells
    if sys.path and (sys.path[0] == "" or Path(sys.path[0]) == Path.cwd()):
        del sys.path[0]
    sys.modules["debugpy"] = None
    atexit.register(_skip_teardown)


def launch() -> None:
    prepare()
    serve()


def serve() -> None:
    global _shut_down_cleanly
    parent = os.environ.get("JPY_PARENT_PID", "")
    if parent.isdigit():  # the kernel ends with the process that started it (a forked one: the zygote), even one killed by SIGKILL
        from runbook_lib.fs.lifeline import die_with_parent
        die_with_parent(int(parent))
    import asyncio
    import threading

    from ipykernel.ipkernel import IPythonKernel
    from ipykernel.kernelapp import IPKernelApp
    from traitlets import Type

    from runbook_lib.kernel.shell import COMPILER, RunbookShell

    class RunbookKernel(IPythonKernel):
        _warming = False
        shell_class = Type(RunbookShell)  # shell.py: what a cell and a display no longer pay for
        compiler_class = Type(COMPILER)

        async def kernel_info_request(self, stream, ident, parent):
            await super().kernel_info_request(stream, ident, parent)
            if not RunbookKernel._warming:
                # Once the reply and the "idle" status after it are out: a thread that imports while the kernel
                # still answers would hold the GIL the answer needs (measured: the kernel ready ~0.13 s later).
                RunbookKernel._warming = True
                thread = threading.Thread(target=warm_up, name="runbook-warm-up", daemon=True)
                try:
                    asyncio.get_running_loop().call_soon(thread.start)
                except RuntimeError:  # not on an asyncio loop (--trio-loop): now, then
                    thread.start()

        async def shutdown_request(self, stream, ident, parent):
            # Once asked to stop, ipykernel may still flush stderr into the output thread's pipe it has just closed
            # ("Socket operation on non-socket", a traceback logged by tornado on the kernel's stderr, which the
            # runner's caller sees after a failed run). Every output has been sent by then: not worth a word.
            import logging

            logging.getLogger("tornado.general").setLevel(logging.CRITICAL)
            await super().shutdown_request(stream, ident, parent)

    class RunbookKernelApp(IPKernelApp):
        kernel_class = RunbookKernel

        def init_shell(self):
            super().init_shell()
            if self.shell is not None:  # a cell run before the cells above it: what to run, not a NameError
                from runbook_lib.notebook.kernel_names import install
                install(self.shell)

    RunbookKernelApp.launch_instance()
    _shut_down_cleanly = True  # launch_instance returned: the kernel was asked to shut down and did
