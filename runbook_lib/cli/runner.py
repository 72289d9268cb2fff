"""`python -m runbook_lib.runner ...`: papermill's own command line, with its `runbook` engine.

Every argument goes to papermill's CLI unchanged, with `--engine runbook` first unless the caller gives an engine
(runbook_lib/evidence/engine.py: papermill's nbclient engine, the stock python3 kernel on private IPC sockets).
A leading `--show` also prints the run's steps (runbook_lib/evidence/show.py) once papermill is done.
"""

from __future__ import annotations

import os
import sys

from runbook_lib.evidence.archive import OUTPUT_NOTEBOOK


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


def main(argv: list[str] | None = None) -> int:
    """papermill's CLI. With a leading `--show`, also print where the executed notebook is and its step summary
    (runbook_lib.show) in the same process, and exit with the run's result: `make run` costs one start-up.
    A failed run ends with its own reason and the notebook's path (why_failed), never a traceback.

    Exit codes: 0 the run passed, 1 it failed (a step, a refusal, a parameter; or no kernel), 2 papermill's own
    usage errors (an unknown option)."""
    args = list(argv if argv is not None else sys.argv[1:])
    show = bool(args) and args[0] == "--show"
    if show:
        args = args[1:]
        os.environ["RUNBOOK_TERMINAL_SUMMARY"] = "0"  # shown below from the notebook: the kernel says nothing
    notebooks = [a for a in args if a.endswith(".ipynb")]
    if len(notebooks) >= 2:  # the kernel's cells may link to files beside it (notebooks/class.ipynb does)
        os.environ[OUTPUT_NOTEBOOK] = os.path.abspath(notebooks[1])
    if args and not {"--help", "--version", "--help-notebook"} & set(args) and not _option(args, "--engine"):
        from runbook_lib.evidence.archive import ENGINE_NAME
        args = ["--engine", ENGINE_NAME, *args]
    from papermill.cli import papermill

    failed = None
    try:
        papermill.main(args=args, prog_name="papermill", standalone_mode=True)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except Exception as exc:  # noqa: BLE001 - a failed cell: papermill already wrote the notebook
        from runbook_lib.evidence.stop_reason import explain_missing
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
    """`python -m runbook_lib.runner`: main() as the process's exit status."""
    raise SystemExit(main())


if __name__ == "__main__":
    run_as_program()
