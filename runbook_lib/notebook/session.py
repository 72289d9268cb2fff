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


def _shell():
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - ipykernel is a dependency
        return None
    return get_ipython()


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
