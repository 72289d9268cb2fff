"""The feedback page a student reads: what passed, and for each finding where it is, what is wrong, why it
matters and how to fix it, in Korean and English. Built from the step records alone (never from the
notebook's error output), so it holds no traceback; self-contained (no script, no external file)."""

from __future__ import annotations

import html

from runbook_lib.grading.model import PASSING, Student, blocked_words
from runbook_lib.findings.catalog import say
from runbook_lib.findings.text import both_html as _both
from runbook_lib.findings.text import html as _finding
from runbook_lib.lab.lessons import lesson
from runbook_lib.findings.problem import Problem

STYLE = """
body{font-family:system-ui,"Noto Sans KR","Apple SD Gothic Neo","Malgun Gothic",sans-serif;max-width:60rem;
margin:2rem auto;padding:0 1rem;line-height:1.6;color:#1f2328;word-break:keep-all}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}.en{color:#57606a}
.verdict{padding:.6rem 1rem;border-radius:6px;font-weight:bold}.ok{background:#dafbe1}.bad{background:#ffebe9}
.finding{border-left:4px solid #cf222e;padding:.2rem .8rem;margin:.8rem 0;background:#fff8f8}
.where{font:0.85rem ui-monospace,"D2Coding",Menlo,monospace;color:#0969da}
pre{background:#f6f8fa;padding:.5rem .7rem;overflow-x:auto;font:0.85rem/1.45 ui-monospace,"D2Coding",monospace}
ul.passed li{list-style:"✓ ";color:#1a7f37}.skipped{color:#9a6700}.lesson{font-size:.9rem;color:#57606a}
"""


def _e(text) -> str:
    return html.escape(str(text or ""), quote=True)


def _title(rec: dict) -> str:
    t = rec.get("title") or {}
    return f"{_e(rec.get('step'))}. {_e(t.get('ko'))} / <span class=\"en\">{_e(t.get('en'))}</span>"


def render(s: Student) -> str:
    failed = [r for r in s.steps if r.get("status") == "failed"]
    passed = [r for r in s.steps if r.get("status") in PASSING]
    skipped = [r for r in s.steps if r.get("status") == "skipped"]
    blocked = [r for r in s.steps if r.get("status") == "blocked"]
    said = say("feedback.all_passed") if s.ok else say("feedback.steps_to_fix", n=len(failed))
    verdict = (f'<p class="verdict {"ok" if s.ok else "bad"}">{_e(said.ko)}<br>'
               f'<span class="en">{_e(said.en)}</span></p>')
    body = [f"<h1>실습 피드백 / Lab feedback: {_e(s.label)}</h1>", verdict]
    if s.error:
        body.append('<h2>채점이 끝나지 않았습니다 / The grading did not finish</h2>'
                    '<p>실습 루트를 끝까지 읽지 못했습니다. 강사에게 이 내용을 보여 주세요.</p>'
                    '<p class="en">Your lab root could not be read to the end; show this to your instructor.</p>'
                    f"<pre>{_e(s.error.get('ename'))}: {_e(s.error.get('evalue'))}</pre>")
    for rec in failed:
        body.append(f"<h2>✗ {_title(rec)}</h2>")
        body.append(_both(rec.get("message")))
        body += [_finding(p) for p in rec.get("problems") or []]
        body.append(f'<div class="lesson"><b>배울 것 / lesson</b>{_both(lesson(rec.get("id"), rec.get("title")).as_dict(), "div")}</div>')
    if blocked:  # what waits for an earlier fix: its own words are the earlier step's, shown above
        body.append("<h2>앞 단계를 고친 뒤 확인할 단계 / Checked once an earlier step is fixed</h2>")
        body += [f'<div class="skipped"><b>{_title(r)}</b>{_both(blocked_words(r))}</div>' for r in blocked]
    if passed:
        body.append("<h2>통과한 단계 / What passed</h2><ul class=\"passed\">")
        body += [f"<li>{_title(r)}</li>" for r in passed]
        body.append("</ul>")
    if skipped:
        body.append("<h2>건너뛴 단계 / Skipped</h2>")
        said = Problem.of("feedback.skipped").what.as_dict()  # the step's own reason is for the operator
        for r in skipped:
            body.append(f'<div class="skipped"><b>{_title(r)}</b>{_both(said)}</div>')
    return ('<!DOCTYPE html>\n<html lang="ko">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{_e(s.label)} — 실습 피드백 / lab feedback</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")
