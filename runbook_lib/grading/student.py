"""One student's run, in a child forked from the in-process zygote (runbook_lib/kernel/zygote.py, `--in-process`).

The child has everything imported and the kernel's shell built, and nothing any notebook did: it runs this
student's notebook cell by cell in that shell (runbook_lib/kernel/inprocess.py), writes it and archives it as
every run is archived (evidence/archive.keep: run.ipynb, run.html, manifest.json), reports and ends. The grader
(runner.py) only asks for the child and waits for it; both cores work on students, not on messages.

Records as papermill keeps them: the parameters injected after the `parameters` cell, papermill's notebook and
per-cell records (`metadata.papermill`), its error marker at the top when a cell failed, nbclient's outputs and
timing records. A cell that runs past the limit ends the run there: the notebook is written as it stands, with
the reason as the run's error (grade.cell_timeout); a child that dies is graded by the grader from what it left
(grade.kernel_died).
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

def _text(code: str, **values) -> str:
    from runbook_lib.findings.text import text
    from runbook_lib.findings.problem import Problem

    return text(Problem.of(code, **values).as_dict())


def prepare(base, notebook: Path, params: dict, out_nb: Path, copy: bool = True):
    """The student's notebook as papermill would start it: the parameters injected after the `parameters`
    cell, papermill's notebook and cell records reset."""
    import copy as copying

    from papermill.execute import prepare_notebook_metadata, remove_error_markers
    from papermill.parameterize import parameterize_notebook

    nb = parameterize_notebook(copying.deepcopy(base) if copy else base, params, report_mode=False)  # it edits it
    nb = prepare_notebook_metadata(nb, str(notebook), str(out_nb))
    return remove_error_markers(nb)


def _write_started(nb, out_nb: Path) -> None:
    """The notebook as the student's run starts, in nbformat's own JSON (its v4 writer), without validating it
    again: it is the notebook papermill read and validated, the parameters cell nbformat built (and validated)
    and papermill's records. The final write (write_ipynb below) is nbformat's full one, validation included."""
    from nbformat.v4.nbjson import writes

    from runbook_lib.fs.safe_write import write_file

    write_file(out_nb, writes(nb))  # as every file of the grading folder: whole or not at all


TARGET = f"{__name__}:run"
PROGRESS_NAME = ".run.progress"  # in the student's folder while the child runs: each cell as it ends


class Progress:
    """Each cell as it ends, one JSON line, so that a child that dies mid-run (a cell that ends the process, a
    signal) leaves its notebook as far as it ran: the grader merges these lines into the notebook written at the
    start (runner.py: `merge_progress`) and removes the file. Compact JSON of one cell and one write a cell: no
    notebook is rewritten while it runs."""

    def __init__(self, path: Path):
        self.path = path
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)

    def line(self, message: dict) -> None:
        data = (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        while data:
            data = data[os.write(self.fd, data):]

    def close(self) -> None:
        os.close(self.fd)
        try:
            os.unlink(self.path)
        except OSError:
            pass


def merge_progress(nb, run_dir: Path) -> int | None:
    """Into ``nb`` (the notebook as its run started), the cells a dead child finished; the cell it was in (None:
    not known). The progress file is removed."""
    path = run_dir / PROGRESS_NAME
    at = None
    try:
        lines = path.read_bytes().splitlines()
    except OSError:
        return None
    for raw in lines:
        try:
            message = json.loads(raw)
        except ValueError:  # the last line, cut by the death
            continue
        if "at" in message:
            at = message["at"]
            if nb is not None and "start" in message:
                nb.cells[at].setdefault("metadata", {})["papermill"] = message["start"]
        elif "cell" in message and nb is not None:
            import nbformat

            nb.cells[message["cell"]] = nbformat.from_dict(message["data"])
    try:
        path.unlink()
    except OSError:
        pass
    return at
_base: dict = {}  # a notebook read once in the zygote, before any fork (zygote_warm)
_kept: list = []


def zygote_warm() -> None:
    """What every child needs, imported in the zygote once."""
    import nbclient  # noqa: F401
    import papermill.engines  # noqa: F401
    import papermill.execute  # noqa: F401
    import papermill.iorw  # noqa: F401
    import papermill.parameterize  # noqa: F401

    import runbook_lib.evidence.archive  # noqa: F401
    import runbook_lib.evidence.html  # noqa: F401
    from runbook_lib.grading.output_schema import _validators, fast_output_checks

    _validators()  # compiled once, here
    _kept.append(fast_output_checks())  # kept: a context collected would put nbformat's own check back
    _kept[-1].__enter__()  # for the zygote's whole life: it only ever grades (output_schema.py)
    _warm_archive()


def _warm_archive() -> None:
    """The packaged notebook read, validated and rendered once (nbformat's validator, the Markdown renderer's
    compiled patterns), so that no child pays for it first."""
    from nbformat import validate

    from runbook_lib.evidence import html as notebook_html
    from runbook_lib.evidence.archive import packaged_notebook

    nb = base_notebook(str(packaged_notebook()))
    validate(nb)
    notebook_html.render(nb, title="warm-up")


def base_notebook(path: str):
    from papermill.iorw import load_notebook_node

    if path not in _base:
        _base[path] = load_notebook_node(path)
    return _base[path]


def run(shell, args: dict, report) -> None:
    """The student's notebook (args: notebook, run_dir, root, label, kind, params, version, timeout), executed,
    written and archived; reports {"ok": ...}."""
    from nbclient.exceptions import CellExecutionError, CellTimeoutError
    from papermill.engines import NotebookExecutionManager

    from runbook_lib.evidence.archive import NOTEBOOK_NAME, utc_now
    from runbook_lib.kernel.inprocess import Executor

    started = utc_now()
    run_dir = Path(args["run_dir"])
    run_dir.mkdir(parents=True, exist_ok=True)
    out_nb = run_dir / NOTEBOOK_NAME
    notebook = Path(args["notebook"])
    # the zygote's copy of the notebook is this child's own: edited in place, no copy
    nb = prepare(base_notebook(str(notebook)), notebook, args["params"], out_nb, copy=False)
    nb_man = NotebookExecutionManager(nb, output_path=None, progress_bar=False)
    nb_man.notebook_start()
    # no notebook written at the start (a full JSON write and an fsync a student): a child that dies leaves its
    # progress file, from which the grader writes the notebook as far as it ran (runner.grade_in_process)
    timeout = float(args["timeout"])
    executor = Executor(nb, shell, kernel_name=args.get("kernel_name") or "nvidia-runbook")
    state = {"index": None}
    progress = Progress(run_dir / PROGRESS_NAME)

    def finish(error: dict | None) -> None:
        executor.stop()
        progress.close()
        nb_man.notebook_complete()
        ok = _archive(nb, out_nb, run_dir, notebook, args, started, error)
        report({"ok": ok})

    def on_alarm(signum, frame):  # the limit: the run ends in this cell, written as it stands
        index = state["index"]
        signal.setitimer(signal.ITIMER_REAL, 0)
        try:
            nb_man.cell_exception(nb.cells[index], cell_index=index,
                                  exception=CellTimeoutError(f"cell {index} ran past {timeout} s"))
            nb_man.cell_complete(nb.cells[index], cell_index=index)
            finish({"kind": "timeout", "cell_index": index, "ename": "CellTimeoutError",
                    "evalue": _text("grade.cell_timeout", cell=index, seconds=args["timeout"], root=args["root"])})
        finally:
            os._exit(0)

    signal.signal(signal.SIGALRM, on_alarm)
    executor.start()
    error = None
    for index, cell in enumerate(nb.cells):
        state["index"] = index
        try:
            nb_man.cell_start(cell, index)
            if cell.cell_type == "code":
                progress.line({"at": index, "start": cell.metadata.get("papermill")})
            signal.setitimer(signal.ITIMER_REAL, timeout)
            executor.execute_cell(cell, index)
        except CellExecutionError as exc:
            nb_man.cell_exception(nb.cells[index], cell_index=index, exception=exc)
            break
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            nb_man.cell_complete(nb.cells[index], cell_index=index)
            if cell.cell_type == "code":
                progress.line({"cell": index, "data": nb.cells[index]})
    nb.metadata["language_info"] = executor.language_info()  # the kernel's kernel_info, as the grader asked it
    finish(error)


def _archive(nb, out_nb: Path, run_dir: Path, notebook: Path, args: dict, started, error) -> bool:
    from papermill.exceptions import PapermillExecutionError
    from papermill.execute import raise_for_execution_errors
    from papermill.iorw import write_ipynb

    from runbook_lib.evidence.archive import keep, utc_now

    try:
        raise_for_execution_errors(nb, str(out_nb))  # papermill's marker at the top, and the write, on a cell error
        write_ipynb(nb, str(out_nb))
    except PapermillExecutionError as exc:
        error = error or {"kind": "cell", "cell_index": exc.cell_index, "ename": exc.ename, "evalue": exc.evalue}
    result = keep(run_dir, nb, label=args["label"], notebook=notebook, parameters=args["params"], started=started,
                  ended=utc_now(), error=error, version=args["version"], kind=args["kind"])
    return bool(result.ok)
