"""The feedback page a student reads: what passed, and for each finding where it is, what is wrong, why it
matters and how to fix it, in Korean and English. Built from the step records alone (never from the
notebook's error output), so it holds no traceback; self-contained (no script, no external file)."""

from __future__ import annotations

import html

from urllib.parse import quote

from runbook_lib.grading.model import INDEX_NAME, NOTEBOOK_NAME, PASSING, RESULTS_NAME, Student, blocked_words
from runbook_lib.grading.score import total
from runbook_lib.findings.catalog import say
from runbook_lib.findings.text import both_html as _both
from runbook_lib.findings.text import html as _finding
from runbook_lib.lab.lessons import lesson
from runbook_lib.findings.problem import Problem
from runbook_lib.findings.messages import bilingual
from runbook_lib.steps.base import FAILED, PASSED, SKIPPED
from runbook_lib.steps.status import outcome

_PASSED, _FAILED, _SKIPPED = outcome(PASSED), outcome(FAILED), outcome(SKIPPED)  # marks, colours: steps/status.py
STYLE = f"""
body{{font-family:system-ui,"Noto Sans KR","Apple SD Gothic Neo","Malgun Gothic",sans-serif;max-width:60rem;
margin:2rem auto;padding:0 1rem;line-height:1.6;color:#1f2328;word-break:keep-all}}
h1{{font-size:1.5rem}}h2{{font-size:1.15rem;margin-top:2rem}}.en{{color:#57606a}}
.verdict{{padding:.6rem 1rem;border-radius:6px;font-weight:bold}}.ok{{background:#dafbe1}}.bad{{background:#ffebe9}}
.finding{{border-left:4px solid {_FAILED.colour};padding:.2rem .8rem;margin:.8rem 0;background:#fff8f8}}
.where{{font:0.85rem ui-monospace,"D2Coding",Menlo,monospace;color:#0969da}}
pre{{background:#f6f8fa;padding:.5rem .7rem;overflow-x:auto;font:0.85rem/1.45 ui-monospace,"D2Coding",monospace}}
ul.passed li{{list-style:"{_PASSED.mark} ";color:{_PASSED.colour}}}.skipped{{color:{_SKIPPED.colour}}}
.lesson{{font-size:.9rem;color:#57606a}}
"""


def _e(text) -> str:
    return html.escape(str(text or ""), quote=True)


def _title(rec: dict) -> str:
    t = rec.get("title") or {}
    return f"{_e(rec.get('step'))}. " + bilingual({"ko": _e(t.get("ko")), "en": f'<span class="en">{_e(t.get("en"))}</span>'})


def _heading(code: str, capital: bool = False) -> str:
    """A catalog entry's words on one line, escaped: a heading, a label; ``capital`` for an English heading."""
    said = say(code)
    return _e(bilingual(said.capitalized() if capital else said))


def _nav(s: Student) -> str:
    """Back to the class page, and the student's files beside this page (DIR/<label>/): the executed notebook
    when the grading ran it (--notebooks), results.json."""
    pages = ((f"../{INDEX_NAME}", "label.class_page"),) + (((NOTEBOOK_NAME, "label.notebook"),) if s.notebook else ())
    links = [f'<a href="{quote(href)}">{_heading(code)}</a>' for href, code in pages]
    links.append(f'<a href="{RESULTS_NAME}">{RESULTS_NAME}</a>')
    return f'<p class="nav">{" · ".join(links)}</p>'


def render(s: Student) -> str:
    failed = [r for r in s.steps if r.get("status") == "failed"]
    passed = [r for r in s.steps if r.get("status") in PASSING]
    skipped = [r for r in s.steps if r.get("status") == "skipped"]
    blocked = [r for r in s.steps if r.get("status") == "blocked"]
    said = say("feedback.all_passed") if s.ok else say("feedback.steps_to_fix", n=len(failed))
    verdict = (f'<p class="verdict {"ok" if s.ok else "bad"}">{_e(said.ko)}<br>'
               f'<span class="en">{_e(said.en)}</span></p>')
    title = say("feedback.title")
    score, top = total(s.steps, s.points)  # the numbers of results.json and the class page
    body = [f"<h1>{_heading('feedback.title', capital=True)}: {_e(s.label)}</h1>", verdict,
            f'<p class="score">{_heading("label.score")}: {score:g}/{top:g}</p>', _nav(s)]
    if s.error:
        body.append(f"<h2>{_heading('feedback.grading_unfinished')}</h2>"
                    + _both(say("feedback.grading_unfinished.why"))
                    + f"<pre>{_e(s.error.get('ename'))}: {_e(s.error.get('evalue'))}</pre>")
    for rec in failed:
        body.append(f"<h2>{_FAILED.mark} {_title(rec)}</h2>")
        body.append(_both(rec.get("message")))
        body += [_finding(p) for p in rec.get("problems") or []]
        body.append(f'<div class="lesson"><b>{_heading("label.lesson")}</b>'
                    f'{_both(lesson(rec.get("id"), rec.get("title")).as_dict(), "div")}</div>')
    if blocked:  # what waits for an earlier fix: its own words are the earlier step's, shown above
        body.append(f"<h2>{_heading('feedback.blocked_steps')}</h2>")
        body += [f'<div class="skipped"><b>{_title(r)}</b>{_both(blocked_words(r))}</div>' for r in blocked]
    if passed:
        body.append(f"<h2>{_heading('feedback.passed_steps')}</h2><ul class=\"passed\">")
        body += [f"<li>{_title(r)}</li>" for r in passed]
        body.append("</ul>")
    if skipped:
        body.append(f"<h2>{_heading('feedback.skipped_steps')}</h2>")
        said = Problem.of("feedback.skipped").what.as_dict()  # the step's own reason is for the operator
        for r in skipped:  # a step the grading machine could not grade says so (grading/machine.py)
            own = r.get("message") if r.get("not_graded") else said
            body.append(f'<div class="skipped"><b>{_title(r)}</b>{_both(own)}</div>')
    return ('<!DOCTYPE html>\n<html lang="ko">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{_e(s.label)} — {_e(bilingual(title))}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")
