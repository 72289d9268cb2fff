"""`python -m runbook_lib.runner ...`: papermill's own command line, without an import it never uses.

With JupyterLab installed, `import jsonschema` (done by `nbformat`, so by papermill) compiles an RFC 3987 grammar
to register format checkers notebooks never use (runbook_lib/cdi/format_extras.py): about half of papermill's
start-up. So the runner marks those modules as absent *in its own process*, before papermill is imported;
jsonschema then simply has no "iri" checker, as in an environment without that extra. Nothing is uninstalled,
JupyterLab is untouched, and every argument goes to papermill's CLI unchanged.

It also starts the kernel first (runbook_lib.kernel.early), so that the kernel boots while papermill is
imported, and runs papermill with `--engine runbook` (runbook_lib.kernel.manager), which adopts that kernel
and talks to it over private IPC sockets. An `--engine` of the caller's own turns both off.
"""

from __future__ import annotations

import os
import sys

from runbook_lib.cdi import format_extras
from runbook_lib.kernel.early import OUTPUT_NOTEBOOK  # noqa: F401 - also the name the kernel's cells read


def _option(args: list[str], *names: str) -> str | None:
    """The value of the last ``--name value`` / ``--name=value`` among papermill's arguments."""
    found = None
    for i, arg in enumerate(args):
        for name in names:
            if arg == name and i + 1 < len(args):
                found = args[i + 1]
            elif name.startswith("--") and arg.startswith(name + "="):
                found = arg.split("=", 1)[1]
    return found


def kernel_name_of(args: list[str]) -> str | None:
    """The kernel papermill will start: `-k NAME`, else the input notebook's kernelspec (a local file)."""
    name = _option(args, "-k", "--kernel")
    if name:
        return name
    from runbook_lib.kernel.early import notebook_kernel_name

    for arg in args:
        if arg.endswith(".ipynb") and os.path.isfile(arg):
            return notebook_kernel_name(arg)
    return None


def start_kernel_early(args: list[str]) -> list[str]:
    """Start the kernel now (runbook_lib.kernel.early) and return papermill's arguments with `--engine runbook`,
    whose kernel manager adopts it. With an engine of the caller's own, nothing changes."""
    if _option(args, "--engine"):
        return args
    from runbook_lib.kernel import early as kernel_early

    # papermill's CLI sets this before it starts a kernel; set it first so the early kernel's environment is the
    # one papermill would give it (and the kernel manager's comparison holds).
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    name = kernel_name_of(args)
    if name:
        kernel_early.spawn(name, cwd=_option(args, "--cwd"))
    return ["--engine", "runbook", *args]


def main(argv: list[str] | None = None, *, process_ends: bool = False) -> int:
    """papermill's CLI. With a leading `--show`, also print where the executed notebook is and its step summary
    (runbook_lib.show) in the same process, and exit with the run's result: `make run` costs one start-up.
    A failed run ends with its own reason and the notebook's path (why_failed), never a traceback.

    Exit codes: 0 the run passed, 1 it failed (a step, a refusal, a parameter; or no kernel), 2 papermill's own
    usage errors (an unknown option). ``process_ends``: the process ends when this returns (`python -m`), so the
    kernel's own exit is not waited for (runbook_lib/kernel/manager.py: detach_at_shutdown)."""
    args = list(argv if argv is not None else sys.argv[1:])
    show = bool(args) and args[0] == "--show"
    if show:
        args = args[1:]
        os.environ["RUNBOOK_TERMINAL_SUMMARY"] = "0"  # shown below from the notebook: the kernel says nothing
    notebooks = [a for a in args if a.endswith(".ipynb")]
    if len(notebooks) >= 2:  # the kernel's cells may link to files beside it (notebooks/class.ipynb does)
        os.environ[OUTPUT_NOTEBOOK] = os.path.abspath(notebooks[1])
    if args and not {"--help", "--version", "--help-notebook"} & set(args):
        args = start_kernel_early(args)
    format_extras.skip_for_this_process()
    from papermill.cli import papermill

    from runbook_lib.kernel.manager import register

    register()
    if process_ends:
        from runbook_lib.kernel.manager import detach_at_shutdown
        detach_at_shutdown()

    failed = None
    try:
        papermill.main(args=args, prog_name="papermill", standalone_mode=True)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except Exception as exc:  # noqa: BLE001 - a failed cell: papermill already wrote the notebook
        from runbook_lib.kernel.app import explain_missing
        explained = explain_missing(exc)
        if explained:  # a missing kernel: nothing ran and no notebook was written, so say how to fix it
            print(explained, file=sys.stderr)
            return 1
        code, failed = 1, exc
    shown = ""
    if show and len(notebooks) >= 2 and os.path.isfile(notebooks[1]):
        from pathlib import Path

        from runbook_lib.evidence.show import render
        lines, code = render(Path(notebooks[1]).resolve())
        shown = "\n".join(lines)
        print(shown, flush=True)
    if failed is not None:
        print(why_failed(notebooks[1] if len(notebooks) >= 2 else None, failed, shown), file=sys.stderr)
    return code


def why_failed(out: str | None, exc: Exception, shown: str = "") -> str:
    """The run's own reason and where its notebook is (runbook_lib/evidence/stop_reason.py): never papermill's exception
    name or a traceback. Without an executed notebook, papermill's own sentence (an input it could not read).
    ``shown``: what the terminal already says (the steps above), which the reason does not say again."""
    import json

    from runbook_lib.evidence import stop_reason
    if not out or not os.path.isfile(out):
        return f"papermill: {exc}"
    with open(out, encoding="utf-8") as f:
        return "\n".join(stop_reason.lines(out, json.load(f), shown))

def run_as_program() -> None:
    """`python -m runbook_lib.runner`: main() in a process that ends with it, once every exit handler has run
    (logging's flush among them), without the ~0.05 s of teardown of papermill, nbclient, jupyter_client and zmq
    that nobody waits for (kernel/app.py: exit_without_teardown)."""
    import atexit

    from runbook_lib.kernel.app import exit_without_teardown

    code = main(process_ends=True)
    atexit._run_exitfuncs()
    exit_without_teardown(code, (sys.stdout, sys.stderr))


if __name__ == "__main__":
    run_as_program()
