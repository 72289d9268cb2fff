"""The HTML copy of an executed notebook, rendered by nbconvert in a helper process that is ready in advance.

nbconvert's first export in a process costs about a second: importing it (~0.3 s), then compiling its
templates, the Python lexer's and the HTML post-processor's regular expressions (~0.6 s); a second export
of the same notebook takes ~0.15 s. `runbook run` therefore starts this module as a helper process (at low
priority) when the run begins: while the kernel boots and runs the cells, the helper imports nbconvert and
renders a small notebook of the same kind once. When the run is over, the real export is only the cheap one.

The HTML is the same nbconvert output as before (same exporter, same template). If the helper cannot be
started, dies, or reports an error, the export happens in the calling process as it used to.

Protocol (one request): the caller writes one JSON line {"notebook": path, "html": path} to the helper's
stdin; the helper answers one JSON line {"error": null | "text"} on stdout and exits.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
from pathlib import Path

_NICENESS = 10  # the helper only uses what the run's own processes leave over
_ANSWER_TIMEOUT = 120


_local_exporter = None


def local_exporter():
    """This process's HTMLExporter, kept so that a second export here is the cheap one (raises ImportError)."""
    global _local_exporter
    if _local_exporter is None:
        from nbconvert import HTMLExporter

        _local_exporter = HTMLExporter()
    return _local_exporter


def render(nb_node, dest: Path) -> str | None:
    """Write the HTML rendering of ``nb_node`` in this process; returns an error text instead of raising."""
    try:
        exporter = local_exporter()
    except ImportError:
        return "nbconvert is missing: pip install nbconvert"
    try:
        body, _ = exporter.from_notebook_node(nb_node)
        dest.write_text(body, encoding="utf-8")
        return None
    except Exception as exc:  # noqa: BLE001 - any exporter failure is reported in the manifest
        return f"{type(exc).__name__}: {exc}"


def warm_up() -> None:
    """Pay nbconvert's first-export costs now, on a small notebook like the runbook's (see the docstring)."""
    # The runbook's kernel is IPython's: the lexer nbconvert picks is the one its executed notebook names.
    local_exporter().from_notebook_node(_warm_up_notebook(
        {"name": "python", "pygments_lexer": "ipython3", "codemirror_mode": {"name": "ipython", "version": 3}}))


def _warm_up_notebook(language_info: dict):
    """A tiny notebook with each kind of cell and output the runbook produces, in the same language."""
    import nbformat.v4 as v4

    code = v4.new_code_cell("from x import y\nrb = y(root=r'/tmp', mode='apply')  # comment\nprint(rb)", outputs=[
        v4.new_output("stream", name="stdout", text="text\n"),
        v4.new_output("display_data", data={"text/html": "<div><b>step</b><pre>diff</pre></div>",
                                            "text/plain": "step"}),
        v4.new_output("error", ename="E", evalue="v", traceback=["\x1b[0;31mE\x1b[0m: v"]),
    ], execution_count=1)
    text = "# 제목 / Title\n\n*why* and **what**, `code`, [link](#x)\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    nb = v4.new_notebook(cells=[v4.new_markdown_cell(text), code])
    nb.metadata["language_info"] = language_info
    return nb


def _serve() -> int:
    try:
        os.nice(_NICENESS)
    except OSError:
        pass
    from .runner import skip_unused_imports

    skip_unused_imports()  # the URI grammar nbconvert never uses (runbook_lib/runner.py)
    import nbformat

    warm_up()
    line = sys.stdin.readline()
    if not line:
        return 0  # the run ended without asking (it failed before its notebook was written)
    request = json.loads(line)
    try:
        error = render(nbformat.read(request["notebook"], as_version=4), Path(request["html"]))
    except Exception as exc:  # noqa: BLE001
        error = f"{type(exc).__name__}: {exc}"
    sys.stdout.write(json.dumps({"error": error}) + "\n")
    sys.stdout.flush()
    return 0


class Helper:
    """The helper process of one run. `export()` uses it when it is healthy, the calling process otherwise."""

    def __init__(self) -> None:
        try:
            self.process: subprocess.Popen | None = subprocess.Popen(
                [sys.executable, "-m", "runbook_lib.html_export"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, encoding="utf-8")
        except OSError:
            self.process = None
        atexit.register(self.close)  # a run refused before its export: no helper outlives the command

    def export(self, nb_node, notebook: Path, dest: Path) -> str | None:
        answer = self._ask(notebook, dest)
        if answer is not None:
            return answer.get("error")
        return render(nb_node, dest)

    def _ask(self, notebook: Path, dest: Path) -> dict | None:
        process, self.process = self.process, None
        if process is None:
            return None
        try:
            request = json.dumps({"notebook": str(notebook), "html": str(dest)}) + "\n"
            out, _ = process.communicate(request, timeout=_ANSWER_TIMEOUT)
            return json.loads(out) if out.strip() else None
        except (OSError, ValueError, subprocess.TimeoutExpired):
            return None
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()

    def close(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()


if __name__ == "__main__":
    sys.exit(_serve())
