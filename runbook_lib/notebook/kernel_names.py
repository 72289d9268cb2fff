"""A name of the notebook's cells that is not defined yet (`rb`, `plan`, a parameter): the student ran a cell
before the ones above it, or the validation cell refused. The kernel shows what to run instead of a NameError
traceback; any other NameError is IPython's as usual."""

from __future__ import annotations

# what notebooks/run.ipynb's cells define, besides the parameters
CELL_NAMES = ("nb", "rb", "plan", "expect", "cfg", "nvidia", "cri", "spec", "rc")


def explain(shell, etype, evalue, tb, tb_offset=None) -> list[str]:
    """IPython's custom exception handler. IPython leaves the showing to it: the error goes out as the kernel's
    own does (an error message, so papermill and JupyterLab still see the cell fail), with these lines."""
    from runbook_lib.findings.problem import Problem
    from runbook_lib.findings.text import lines
    from runbook_lib.engine.params import PARAM_NAMES
    name = getattr(evalue, "name", None)
    if name not in CELL_NAMES + tuple(PARAM_NAMES):
        shell.showtraceback((etype, evalue, tb), tb_offset=tb_offset)
        return []
    p = Problem.of("notebook.not_started", name=name)
    stb = lines(p)
    shell._showtraceback(etype, evalue, stb)  # what showtraceback does once it has the lines
    return stb


def install(shell) -> None:
    shell.set_custom_exc((NameError,), explain)
