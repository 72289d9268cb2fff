"""A finding (a problem in a step record) as text for a student: where, what, why and the fix, in Korean and
English. One wording for the JUnit failure, the Gradescope output and the class views."""

from __future__ import annotations


def where(problem: dict) -> str:
    """file:line[:column], or the file alone, or nothing."""
    path, line, col = problem.get("path"), problem.get("line"), problem.get("col")
    if not path:
        return ""
    if not line:
        return str(path)
    return f"{path}:{line}" + (f":{col}" if col else "")


def _both(value) -> tuple[str, str]:
    value = value or {}
    return value.get("ko") or "", value.get("en") or ""


def text(problem: dict) -> str:
    """A finding as plain text, Korean line then English line for each part."""
    lines = []
    at = where(problem)
    ko, en = _both(problem.get("what"))
    lines += [f"{'[' + at + '] ' if at else ''}{ko}", f"{'  ' if at else ''}{en}"]
    if problem.get("excerpt"):
        lines += problem["excerpt"].split("\n")
    if problem.get("why"):
        ko, en = _both(problem["why"])
        lines += [f"왜: {ko}", f"why: {en}"]
    if problem.get("fix"):
        ko, en = _both(problem["fix"])
        lines += [f"고치기: {ko}", f"fix: {en}"]
    return "\n".join(lines)


def step_text(rec: dict) -> str:
    """A failed (or skipped) step: its message, then each finding."""
    problems = rec.get("problems") or []
    ko, en = _both(rec.get("message"))
    parts = [] if problems and _both(problems[0].get("what")) == (ko, en) else [f"{ko}\n{en}"]
    parts += [text(p) for p in problems]
    return "\n\n".join(parts)


def code(problem: dict) -> str | None:
    """The finding's code, once the step records carry one (issue 12); None before."""
    return problem.get("code")


def step_name(rec: dict) -> str:
    title = rec.get("title") or {}
    number = "" if str(rec.get("step")) == str(rec.get("id")) else f"{rec.get('step')} "
    return f"{number}{rec.get('id')}: {title.get('ko', '')} / {title.get('en', '')}"
