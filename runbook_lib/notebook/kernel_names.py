"""A name of the notebook's cells that is not defined yet (`plan`, `cfg`, `rb` after a refused start, a
parameter): the student ran a cell before the ones above it, or the validation cell refused. From the validation
cell on (nb.start installs it, with IPython's public `set_custom_exc`), the kernel says what to run instead of a
NameError traceback; any other NameError is IPython's as usual. A fresh kernel knows nothing of the runbook before
that cell has run: there, a cell run first shows IPython's own NameError."""

from __future__ import annotations

# what notebooks/run.ipynb's cells define, besides the parameters
CELL_NAMES = ("nb", "rb", "plan", "expect", "cfg", "nvidia", "cri", "spec", "rc")


def explain(shell, etype, evalue, tb, tb_offset=None) -> None:
    """IPython's custom exception handler: the error goes out as the kernel's own does (an error message, so
    papermill and JupyterLab still see the cell fail), its value the finding's lines instead of a traceback."""
    from runbook_lib.findings.problem import Problem
    from runbook_lib.findings.text import lines
    from runbook_lib.engine.params import PARAM_NAMES
    name = getattr(evalue, "name", None)
    if name not in CELL_NAMES + tuple(PARAM_NAMES):
        shell.showtraceback((etype, evalue, tb), tb_offset=tb_offset)
        return
    said = NameError("\n".join(lines(Problem.of("notebook.not_started", name=name))), name=name)
    shell.showtraceback((NameError, said, None), exception_only=True)


def install(shell) -> None:
    shell.set_custom_exc((NameError,), explain)
