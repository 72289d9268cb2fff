"""The class at a glance: students × steps (passed / failed / skipped), as an HTML table with colours and as an
SVG picture; the most common mistakes with their counts and the lesson each points to; and links to every
student's feedback page. Used by DIR/index.html (runbook grade) and notebooks/class.ipynb."""

from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass

from runbook_lib.findings.text import code
from runbook_lib.grading.model import (CSV_NAME, FEEDBACK_NAME, GRADES_NAME, JUNIT_NAME, NOTEBOOK_NAME, ClassGrade,
                                       root_causes)
from runbook_lib.grading.score import total
from runbook_lib.steps.status import STATES, look, outcome, verdict
from runbook_lib.lab.lessons import lesson
from runbook_lib.findings.messages import Msg, bilingual, display_width
from runbook_lib.findings.catalog import say

LEFT = "text-align:left"  # JupyterLab's and nbconvert's stylesheets right-align a rendered table's cells
# A state's mark, colour and words are its row of steps/status.py (look), the one table of them.


def cell_state(status: str | None) -> str:
    return outcome(status).state  # steps/status.py, the one status mapping


def matrix(result: ClassGrade) -> tuple[list[tuple[str, object, dict]], list[tuple[str, list[str]]]]:
    """(steps, rows): each row is a student's label and the state of every step, in the steps' order."""
    steps = result.step_ids()
    rows = []
    for s in result.students:
        by_id = {str(r.get("id")): r.get("status") for r in s.steps}
        rows.append((s.label, [cell_state(by_id.get(i)) for i, _, _ in steps]))
    return steps, rows


def _e(text) -> str:
    return html.escape(str(text or ""), quote=True)


def student_links(s, base: str = "") -> str:
    """A student's pages: the feedback, and the executed notebook when the grading ran it (--notebooks)."""
    pages = ((FEEDBACK_NAME, "label.feedback"),) + (((NOTEBOOK_NAME, "label.notebook"),) if s.notebook else ())
    return " · ".join(f'<a href="{_e(base + s.href(name))}">{_e(bilingual(say(code)))}</a>' for name, code in pages)


def score_text(s) -> str:
    score, top = total(s.steps, s.points)  # results.json's numbers (runbook_lib/grading/score.py)
    return f"{score:g}/{top:g}"


def legend_html(result: ClassGrade) -> str:
    """The colours the grid uses, each with its mark and its words (blocked is "fix an earlier step first")."""
    _, rows = matrix(result)
    present = {st for _, states in rows for st in states}
    items = "".join(f'<span class="legend" style="background:{look(st).colour};color:#fff;padding:0 .4rem;'
                    f'margin-right:.4rem;display:inline-block">{look(st).mark} {_e(bilingual(look(st).said))}</span>'
                    for st in STATES if st in present)
    return f'<p><b>{_e(bilingual(say("label.legend")))}</b>: {items}</p>'


def table_html(result: ClassGrade, base: str = "") -> str:
    """The grid as an HTML table: each student's name, the states, the score on the lab's fixed total, the
    verdict and the links to the student's pages (``base`` goes in front)."""
    steps, rows = matrix(result)
    head = "".join(f'<th style="{LEFT}" title="{_e(bilingual(t))}">{_e(n)}<br><small>{_e(i)}</small></th>'
                   for i, n, t in steps)
    out = ['<table style="border-collapse:collapse;word-break:keep-all">',
           f'<tr><th style="{LEFT}">{_e(bilingual(say("label.student")))}</th>{head}'
           f'<th style="{LEFT}">{_e(bilingual(say("label.score")))}</th>'
           f'<th style="{LEFT}">{_e(bilingual(say("label.result")))}</th>'
           f'<th style="{LEFT}">{_e(bilingual(say("label.files")))}</th></tr>']
    for (label, states), s in zip(rows, result.students):
        tds = "".join(f'<td style="background:{look(st).colour};width:2.2rem;text-align:center;color:#fff" '
                      f'title="{st}">{look(st).mark}</td>' for st in states)
        link = f'<a href="{_e(base + s.href(FEEDBACK_NAME))}">{_e(label)}</a>'
        out.append(f'<tr><td style="{LEFT};padding:2px 8px">{link}</td>{tds}'
                   f'<td style="{LEFT};padding:2px 8px" class="score">{score_text(s)}</td>'
                   f'<td style="{LEFT};padding:2px 8px">{_e(bilingual(verdict(s.ok)))}</td>'
                   f'<td style="{LEFT};padding:2px 8px;white-space:nowrap">{student_links(s, base)}</td></tr>')
    out.append("</table>")
    return "".join(out) + legend_html(result)


def class_files_html(base: str = "") -> str:
    """The class's own files: grades.json (for a course platform), grades.csv (for an LMS) and junit.xml (for CI)."""
    names = (GRADES_NAME, CSV_NAME, JUNIT_NAME)
    return "<p>" + " · ".join(f'<a href="{_e(base + name)}">{name}</a>' for name in names) + "</p>"


def column_label(step_id: str, number) -> str:
    """A step's name over its column: "3 options", or the id alone when it is its own number ("restart")."""
    return step_id if str(number) == step_id else f"{number} {step_id}"


def svg(result: ClassGrade) -> str:
    """The grid as a picture: one square per student and step, the students' names on the left, and each
    column's label written upwards over it, so that no two labels meet however many steps there are (a label
    is one line of text tall across a column wider than that; tests/browser/ measures it in Chromium)."""
    steps, rows = matrix(result)
    size, gap, font = 22, 3, 11
    left = 12 + 8 * max([display_width(label) for label, _ in rows] + [8])
    top = 16 + 7 * max([len(column_label(i, n)) for i, n, _ in steps] + [4])
    width = left + len(steps) * (size + gap) + 10
    height = top + len(rows) * (size + gap) + 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
             f'<rect width="{width}" height="{height}" fill="#ffffff"/>']
    for c, (i, n, _) in enumerate(steps):
        x, y = left + c * (size + gap) + size / 2 + font / 3, top - 6
        parts.append(f'<text class="column" x="{x}" y="{y}" font-size="{font}" transform="rotate(-90 {x} {y})">'
                     f'{_e(column_label(i, n))}</text>')
    for r, (label, states) in enumerate(rows):
        y = top + r * (size + gap)
        parts.append(f'<text class="row" x="{left - 8}" y="{y + size * 0.7}" text-anchor="end">{_e(label)}</text>')
        for c, st in enumerate(states):
            x = left + c * (size + gap)
            parts.append(f'<rect x="{x}" y="{y}" width="{size}" height="{size}" rx="3" fill="{look(st).colour}">'
                         f'<title>{_e(label)} · {_e(steps[c][0])}: {st}</title></rect>')
    parts.append("</svg>")
    return "".join(parts)


@dataclass
class Mistake:
    key: str  # the finding's code once records carry one, else the step id
    step: object
    step_id: str
    students: list[str]
    example: dict  # one finding's what{ko,en}, or the step's message
    lesson: Msg

    @property
    def count(self) -> int:
        return len(self.students)


NOT_STARTED = "lab.not_started"  # the key of a student none of whose steps passes: one root cause, not one a file


def not_started(s) -> bool:
    """The lab was not started: step 1 found no config at all. Every later finding (each file it lacks) only
    says so again, so the student is one row of the common mistakes, not one row a missing file."""
    return any(p.get("code") == "prepare.config_missing"
               for r in s.failed_steps() if r.get("id") == "prepare" for p in r.get("problems") or [])


def common_mistakes(result: ClassGrade) -> list[Mistake]:
    """Mistakes by how many students made them, most common first: each student's root causes, each counted once
    (a finding that only follows from an earlier one is that one's; a student who did not start is one row)."""
    found: dict[str, Mistake] = {}
    for s in result.students:
        if not_started(s):
            m = found.setdefault(NOT_STARTED, Mistake(NOT_STARTED, 1, "prepare", [],
                                                      say("class_view.not_started").as_dict(),
                                                      lesson("prepare", None)))
            m.students.append(s.label)
            continue
        seen = set()
        for rec in s.failed_steps():
            # root causes only: a finding that names an earlier step's again is that step's mistake, counted there
            problems = root_causes(rec) if rec.get("problems") else [{"what": rec.get("message")}]
            for p in problems:
                key = code(p) or str(rec.get("id"))
                if key in seen:
                    continue
                seen.add(key)
                m = found.setdefault(key, Mistake(key, rec.get("step"), str(rec.get("id")), [], p.get("what") or {},
                                                  lesson(rec.get("id"), rec.get("title"))))
                m.students.append(s.label)
    order = Counter({k: m.count for k, m in found.items()})
    return [found[k] for k, _ in order.most_common()]


def mistakes_html(result: ClassGrade) -> str:
    rows = common_mistakes(result)
    if not rows:
        return f"<p>{_e(bilingual(say('class_view.no_mistakes')))}</p>"
    th = f'<th style="{LEFT}">'
    td = f'<td style="{LEFT};vertical-align:top">'
    heads = ("label.students", "label.step", "label.example", "label.lesson")
    out = ['<table style="border-collapse:collapse;word-break:keep-all"><tr>'
           + "".join(f"{th}{_e(bilingual(say(code)))}</th>" for code in heads) + "</tr>"]
    for m in rows:
        out.append(f"<tr>{td}{m.count}</td>{td}{_e(m.step)} {_e(m.step_id)}</td>"
                   f"{td}{_e(m.example.get('ko'))}<br><small>{_e(m.example.get('en'))}</small><br>"
                   f"<small>{_e(', '.join(m.students))}</small></td>"
                   f"{td}{_e(m.lesson.ko)}<br><small>{_e(m.lesson.en)}</small></td></tr>")
    out.append("</table>")
    return "".join(out)


def counts_line(result: ClassGrade) -> Msg:
    bad = sum(not s.ok for s in result.students)
    n = len(result.students)
    if not bad:
        return say("class_view.all_students_passed", n=n)
    return say("class_view.students_something_fix", n=n, bad=bad)


def run_errors_html(result: ClassGrade) -> str:
    """The run's own errors (the grading machine's, grading/machine.py), each once with its fix, above the class."""
    if not result.errors:
        return ""
    items = []
    for e in result.errors:
        fix = e.get("fix") or {}
        said = f"{_e(e['what']['ko'])}<br>{_e(e['what']['en'])}"
        if fix:
            said += f"<br>{_e(bilingual(say('label.fix')))}: {_e(fix.get('ko'))}<br>{_e(fix.get('en'))}"
        items.append(f"<li>{said}</li>")
    return (f'<div class="run-errors" style="border:2px solid #cf222e;padding:.5rem 1rem">'
            f"<h2>{_e(bilingual(say('grade.machine.heading')))}</h2><ul>{''.join(items)}</ul></div>\n")


def page(result: ClassGrade) -> str:
    """DIR/index.html: the class picture, the common mistakes and the links, in one self-contained page."""
    line, title = counts_line(result), say("class_view.title")
    heading = lambda code: _e(bilingual(say(code)))  # noqa: E731
    return ('<!DOCTYPE html>\n<html lang="ko">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{_e(bilingual(title))}</title>\n"
            '<style>body{font-family:system-ui,"Noto Sans KR",sans-serif;margin:2rem;word-break:keep-all}'
            "td,th{border:1px solid #d0d7de;padding:2px 6px}</style>\n</head>\n<body>\n"
            f"<h1>{_e(bilingual(title.capitalized()))}</h1><p>{_e(line.ko)}<br>{_e(line.en)}</p>\n"
            f"{run_errors_html(result)}"
            f"<h2>{heading('class_view.at_a_glance')}</h2>{svg(result)}\n"
            f"{table_html(result)}\n{class_files_html()}\n"
            f"<h2>{heading('class_view.common_mistakes')}</h2>{mistakes_html(result)}\n</body>\n</html>\n")
