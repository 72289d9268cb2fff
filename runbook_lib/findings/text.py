"""The one renderer: a finding (a Problem, or its record as the step records hold it) as text for a person,
for each medium: plain lines (the notebook's cells, the CLI, the JUnit failure, results.json / grades.json) and
HTML (the feedback page). Korean line first, then English, for each part: what, the excerpt, why, the fix."""

from __future__ import annotations

import html as _html

from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import bilingual
from runbook_lib.findings.problem import ERROR


def _record(problem) -> dict:
    return problem if isinstance(problem, dict) else problem.as_dict()


def where(problem) -> str:
    """file:line[:column], or the file alone, or nothing."""
    p = _record(problem)
    path, line, col = p.get("path"), p.get("line"), p.get("col")
    if not path:
        return ""
    if not line:
        return str(path)
    return f"{path}:{line}" + (f":{col}" if col else "")


def _both(value) -> tuple[str, str]:
    value = value or {}
    return value.get("ko") or "", value.get("en") or ""


def lines(problem, mark: str = "", indent: str = "") -> list[str]:
    """A finding as plain lines: `[where] what` in Korean then English, the excerpt, why, the fix. After a mark
    (`✗ `) or a place, the lines that follow are indented under the first; ``indent`` goes before every line."""
    p = _record(problem)
    at = where(p)
    pad = indent + ("  " if mark or at else "")
    ko, en = _both(p.get("what"))
    out = [f"{indent}{mark}{'[' + at + '] ' if at else ''}{ko}", f"{pad}{en}"]
    if p.get("excerpt"):
        out += [f"{pad}{x}" for x in p["excerpt"].split("\n")]
    for part, code in (("why", "label.why"), ("fix", "label.fix")):
        if p.get(part):
            label, (ko, en) = say(code), _both(p[part])
            out += [f"{pad}{label.ko}: {ko}", f"{pad}{label.en}: {en}"]
    return out


def text(problem) -> str:
    """A finding as plain text (lines joined)."""
    return "\n".join(lines(problem))


def error_text(problem) -> str:
    """A finding raised as an error: the same lines (an exception's message, a cell's error output)."""
    return text(problem)


def _e(value) -> str:
    return _html.escape(str(value or ""), quote=True)


def both_html(value, tag: str = "p") -> str:
    """A bilingual {ko, en} as two elements, the English one marked for its own style."""
    ko, en = _both(value if isinstance(value, dict) else (value.as_dict() if value else None))
    return f'<{tag} lang="ko">{_e(ko)}</{tag}><{tag} lang="en" class="en">{_e(en)}</{tag}>'


def html(problem) -> str:
    """A finding as an HTML block (class "finding"): where, what, the excerpt, why, the fix."""
    p = _record(problem)
    at = where(p)
    out = ['<div class="finding">']
    if at:
        out.append(f'<div class="where">{_e(bilingual(say("label.where")))}: {_e(at)}</div>')
    out.append(both_html(p.get("what")))
    if p.get("excerpt"):
        out.append(f"<pre>{_e(p['excerpt'])}</pre>")
    if p.get("why"):
        out.append(f"<p><b>{_e(bilingual(say('label.why')))}</b></p>{both_html(p['why'])}")
    if p.get("fix"):
        out.append(f"<p><b>{_e(bilingual(say('label.fix')))}</b></p>{both_html(p['fix'])}")
    out.append("</div>")
    return "".join(out)


def step_text(rec: dict) -> str:
    """A failed (or skipped) step: its message, then each finding."""
    problems = rec.get("problems") or []
    ko, en = _both(rec.get("message"))
    parts = [] if problems and _both(problems[0].get("what")) == (ko, en) else [bilingual(rec.get("message") or {}, "\n")]
    parts += [text(p) for p in problems]
    return "\n\n".join(parts)


def under_step(rec: dict, indent: str = "      ") -> list[str]:
    """What a terminal shows under a failed or blocked step's line: each of a failed step's errors (where, what,
    why, the fix), or the step's message when it has none (a blocked step's "fix step N first")."""
    status = rec.get("status")
    problems = [p for p in rec.get("problems") or [] if isinstance(p, dict) and p.get("severity") == ERROR] \
        if status == "failed" else []
    # a warning is a finding of every status (a runtime whose cgroup driver is not the default runtime's)
    warned = [line for p in warnings(rec) for line in (lambda ko, en: [f"{indent}! {ko}", f"{indent}  {en}"])(*_both(p.get("what")))]
    if problems:
        return [line for p in problems for line in lines(p, indent=indent)] + warned
    if status in ("failed", "blocked"):
        ko, en = _both(rec.get("message"))
        return [f"{indent}{ko}", f"{indent}{en}"] + warned
    return warned


def warnings(rec: dict) -> list[dict]:
    """A step record's warnings (findings that do not fail it), as the record keeps them."""
    return [p for p in rec.get("problems") or [] if isinstance(p, dict) and p.get("severity") not in (None, ERROR)]


def once(lines: list[str], said: set[str]) -> list[str]:
    """The lines not said yet in this terminal (``said`` holds them, stripped, and learns these): a blocked
    step's "fix step N first", or a finding two steps share, is read once."""
    out = []
    for line in lines:
        if line.strip() and line.strip() in said:
            continue
        said.add(line.strip())
        out.append(line)
    return out


def code(problem: dict) -> str | None:
    """The finding's code."""
    return problem.get("code")


def step_name(rec: dict) -> str:
    title = rec.get("title") or {}
    number = "" if str(rec.get("step")) == str(rec.get("id")) else f"{rec.get('step')} "
    return f"{number}{rec.get('id')}: {bilingual(title)}"
