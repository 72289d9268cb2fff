"""The one notebook session of this kernel (``SESSION``): its current run and what its cells have to show, and the
display functions that show it. The only mutable state of runbook_lib.notebook: JupyterLab keeps the kernel between
runs, so a run's successor finds and ends it here."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Session:
    run: object = None                                  # the run of the last nb.start in this kernel
    status_id: str | None = None                        # the display id of its status box (one run at a time)
    status_head: dict = field(default_factory=dict)     # what the box's output shows above it: parameters, the plan
    # The plans a cell displayed and the runbook has not shown yet (PlanView._ipython_display_): shown with the
    # write's lines, before any other output of the runbook, or when the cell ends (IPython's post_run_cell event).
    held: list = field(default_factory=list)
    # What a check cell's reads say ("tomllib: <files> (version 2)", "version 2 → <table>"): held, and shown in the
    # step's own output above its checks, one display message and one output instead of three. Whatever a cell read
    # and did not show that way is shown when the cell ends (IPython's post_run_cell event, still in that cell).
    notes: list = field(default_factory=list)
    hooked: list = field(default_factory=list)          # the shell whose pre/post_run_cell events are registered


SESSION = Session()
TERMINAL = "RUNBOOK_TERMINAL_SUMMARY"  # "0": the runbook's own executors (runbook run, grade) say it themselves


def _shell():
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - ipykernel is a dependency
        return None
    return get_ipython()


def injected_names() -> tuple[str, ...]:
    """The names the cell run just before this one gave the kernel, when that cell is `name = value` lines only:
    under papermill (its CLI, execute_notebook, and every runbook executor) the `injected-parameters` cell papermill
    puts right after the parameters cell, one line per parameter given, or, with none given, the parameters cell
    itself. IPython keeps the previous cell's source as `_i` in the user's namespace (its documented input cache,
    https://ipython.readthedocs.io/en/stable/interactive/reference.html#input-caching-system); the names returned
    are the ones that cell bound there. Nothing outside a kernel, nor after a cell of any other kind (JupyterLab: a
    step's cell run before the validation cell is run again)."""
    shell = _shell()
    source = shell.user_ns.get("_i") if shell is not None else None
    if not isinstance(source, str):
        return ()
    import ast
    try:
        body = ast.parse(source).body
    except SyntaxError:  # a cell of IPython's own syntax (a magic): no parameters cell
        return ()
    names: list[str] = []
    for statement in body:
        if not isinstance(statement, ast.Assign) or not all(isinstance(t, ast.Name) for t in statement.targets):
            return ()
        names += [t.id for t in statement.targets]
    return tuple(n for n in dict.fromkeys(names) if n in shell.user_ns)


def say_on_terminal(lines: list[str]) -> None:
    """In a kernel, lines on the kernel's own standard output, which a plain `papermill` run's terminal is
    (papermill starts the kernel with its own stdout; it shows no cell's output): never into the notebook, and
    not when the runbook's own command runs the notebook and says it itself (RUNBOOK_TERMINAL_SUMMARY=0).

    ipykernel turns the process's file descriptor 1 into a pipe whose every byte becomes the cell's stdout in the
    notebook (and is echoed to the terminal); its ``sys.stdout.fileno()`` is the terminal it started with. So
    the lines are written there: written to ``sys.__stdout__`` they would land in the archived notebook too, a
    second copy of the summary, in one or more pieces as the pipe's reader happened to take them."""
    import os
    import sys
    if _shell() is None or os.environ.get(TERMINAL, "1") == "0":
        return
    data = ("\n".join(lines) + "\n").encode("utf-8", errors="replace")
    for stream in (sys.stdout, sys.__stdout__):  # the kernel's terminal; where a kernel keeps fd 1 its own
        try:
            fd = stream.fileno()
            while data:
                data = data[os.write(fd, data):]
            return
        except (AttributeError, OSError, ValueError):  # no such stream, or a closed one: the notebook still holds it
            continue


def _display(bundle: dict, **kw) -> None:
    shell = _shell()
    if shell is None:  # outside a kernel (tests, scripts): the text form
        if not kw.get("update"):
            print(bundle["text/plain"])
        return
    from IPython.display import display

    _show_held()  # a plan displayed before this output, above it
    _flush_notes()  # what the cell read before this output, above it, as it happened
    display(bundle, raw=True, **kw)


# The plans a cell displayed and the runbook has not shown yet (PlanView._ipython_display_): shown with the
# write's lines, before any other output of the runbook, or when the cell ends (IPython's post_run_cell event).


def _hold(view, shell) -> None:
    _hook(shell)
    SESSION.held.append(view)


def _show_held() -> None:
    while SESSION.held:
        SESSION.held[0].publish()


def _hook(shell) -> None:
    if shell not in SESSION.hooked:
        shell.events.register("pre_run_cell", _cell_started)
        shell.events.register("post_run_cell", _cell_ended)
        SESSION.hooked[:] = [shell]


# What ipykernel logs when a SIGINT finds it between a request's start and end outside a cell's code. jupyter_client
# interrupts every kernel it shuts down (KernelManager.shutdown_kernel), so under load the end of every run could put
# this English line on the operator's terminal, though nobody pressed Ctrl-C; the kernel goes on as if it had not come.
SHUTDOWN_INTERRUPT = "KeyboardInterrupt caught in kernel"


def quiet_kernel_end(shell) -> None:
    """Keep the kernel's own words about its end off the terminal, where the run says its result itself: the
    SHUTDOWN_INTERRUPT line, and whatever the kernel logs once it has been asked to shut down (IPython's public
    ``exit_now``; e.g. the traceback of a reply it could no longer send after a Ctrl-C of `runbook run`). A logging
    filter on the kernel's logger: its other records, errors included, pass."""
    import logging

    log = getattr(getattr(shell, "kernel", None), "log", None)
    if isinstance(log, logging.Logger) and not any(isinstance(f, _NotItsEnd) for f in log.filters):
        log.addFilter(_NotItsEnd(shell))


class _NotItsEnd:
    def __init__(self, shell):
        self.shell = shell

    def filter(self, record) -> bool:
        return not (getattr(self.shell, "exit_now", False) or str(record.msg).startswith(SHUTDOWN_INTERRUPT))


def _cell_started(*_) -> None:
    if SESSION.run is not None:
        SESSION.run.target.remember()  # the cell's paths walked once each (fs/target.py), forgotten when it ends


def _cell_ended(*_) -> None:
    if SESSION.run is not None:
        SESSION.run.target.forget()
    _show_held()
    _flush_notes()


# What a check cell's reads say ("tomllib: <files> (version 2)", "version 2 → <table>"): held, and shown in the
# step's own output above its checks, one display message and one output instead of three. Whatever a cell read
# and did not show that way is shown when the cell ends (IPython's post_run_cell event, still in that cell).


def _note(line: str) -> None:
    shell = _shell()
    if shell is None:
        print(line)
        return
    _hook(shell)
    SESSION.notes.append(line)


def _take_notes() -> list[str]:
    taken = list(SESSION.notes)
    SESSION.notes.clear()
    return taken


def _flush_notes(*_) -> None:
    if SESSION.notes:
        from IPython.display import display

        display({"text/plain": "\n".join(_take_notes())}, raw=True)
