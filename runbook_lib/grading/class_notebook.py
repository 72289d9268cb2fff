"""What notebooks/class.ipynb's cells call: grade the class through `runbook grade`'s own code (grade_class),
then show it: the picture, the most common mistakes, the links to every student's feedback page."""

from __future__ import annotations
from runbook_lib.findings.catalog import say

import html
import os
from pathlib import Path

from runbook_lib.grading import class_view
from runbook_lib.grading.grade import expand_roots, grade_class
from runbook_lib.grading.model import FEEDBACK_NAME, ClassGrade
from runbook_lib.findings.messages import bilingual
from runbook_lib.steps.status import look, verdict


class NoRoots(ValueError):
    """The `roots` parameter named no folder; shown as a sentence, not a traceback."""

    def _render_traceback_(self):  # IPython shows this instead of a traceback
        return [str(self)]


def _display(bundle: dict) -> None:
    try:
        from IPython.display import display
    except ImportError:  # outside a kernel
        print(bundle["text/plain"])
        return
    display(bundle, raw=True)


def grade(roots, out: str, *, runtime_name: str, binary_name: str, systemd_cgroup: bool, jobs: int = 1,
          labels: list[str] | None = None) -> ClassGrade:
    """The grading cell: the lab's expected values go to every student's check run, exactly as `runbook grade
    -p runtime_name ... ROOT...` passes them."""
    found = expand_roots(roots)
    if not found:
        shown = roots if isinstance(roots, str) else ", ".join(map(str, roots))
        raise NoRoots(str(say("class_notebook.no_student_folder_matches", value=shown or '-')))
    params = {"runtime_name": runtime_name, "binary_name": binary_name, "systemd_cgroup": systemd_cgroup}
    result = grade_class(found, out, params, labels=labels, jobs=jobs)  # the engine's verdicts: no kernel starts
    line = class_view.counts_line(result)
    _display({"text/plain": f"{line.ko}\n{line.en}\n{result.out}",
              "text/html": f"<p><b>{html.escape(line.ko)}</b><br>{html.escape(line.en)}<br>"
                           f"<code>{html.escape(str(result.out))}</code></p>"})
    if result.errors:  # the grading machine's (grading/machine.py): once, with its fix, never a student's
        text = [bilingual(say("grade.machine.heading"))]
        for e in result.errors:
            fix = e.get("fix") or {}
            text += [e["what"]["ko"], e["what"]["en"], *([fix["ko"], fix["en"]] if fix else [])]
        _display({"text/plain": "\n".join(text), "text/html": class_view.run_errors_html(result)})
    return result


def picture(result: ClassGrade) -> None:
    """Students × steps: an SVG image, then the same grid as an HTML table with colours."""
    _display({"image/svg+xml": class_view.svg(result), "text/plain": _grid_text(result)})
    _display({"text/html": class_view.table_html(result, _base(result)), "text/plain": _grid_text(result)})


def _grid_text(result: ClassGrade) -> str:
    steps, rows = class_view.matrix(result)
    width = max([len(label) for label, _ in rows] + [7])
    lines = [f"{'student':<{width}}  " + " ".join(str(n)[:2].rjust(2) for _, n, _ in steps) + "  score"]
    lines += [f"{label:<{width}}  " + " ".join(look(st).mark.rjust(2) for st in states) + f"  {class_view.score_text(s)}"
              for (label, states), s in zip(rows, result.students)]
    return "\n".join(lines)


def mistakes(result: ClassGrade) -> None:
    rows = class_view.common_mistakes(result)
    text = [f"{m.count:>3}  {m.step} {m.step_id}: {m.example.get('en', '')}\n     → {m.lesson.en}" for m in rows]
    _display({"text/html": class_view.mistakes_html(result),
              "text/plain": "\n".join(text) or bilingual(say("class_notebook.no_mistakes"))})


def _base(result: ClassGrade) -> str:
    """Links from the executed notebook to DIR/<label>/: relative to the folder it is saved in, which the runner
    tells its kernel (python -m runbook_lib.runner, runbook_lib/runner.py); else the kernel's working folder,
    which is the notebook's own in JupyterLab."""
    from urllib.parse import quote

    from runbook_lib.evidence.archive import OUTPUT_NOTEBOOK

    saved = os.environ.get(OUTPUT_NOTEBOOK)
    here = Path(saved).parent if saved else Path.cwd()
    rel = os.path.relpath(result.out, here)
    return "" if rel == "." else quote(rel.rstrip("/")) + "/"  # a URL: '#' in a folder name is not a fragment


def links(result: ClassGrade) -> None:
    """Every student's pages (the feedback, the executed notebook with --notebooks) and the class's files."""
    base = _base(result)
    items = "".join(
        f'<li>{html.escape(s.label)} — {html.escape(bilingual(verdict(s.ok)))} ({class_view.score_text(s)}) · '
        f"{class_view.student_links(s, base)}</li>" for s in result.students)
    head = say("class_notebook.each_student_s_feedback")
    text = "\n".join(f"{s.label} ({class_view.score_text(s)}): {result.out / s.label / FEEDBACK_NAME}"
                     for s in result.students)
    _display({"text/html": f"<p>{html.escape(bilingual(head))}</p><ul>{items}</ul>"
                           f'<p><a href="{html.escape(base)}grades.json">grades.json</a> · '
                           f'<a href="{html.escape(base)}grades.csv">grades.csv</a> · '
                           f'<a href="{html.escape(base)}junit.xml">junit.xml</a> · '
                           f'<a href="{html.escape(base)}index.html">index.html</a></p>',
              "text/plain": text})
