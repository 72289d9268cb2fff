"""A test names the one outcome it expects (issue 25): no `assert A or B` anywhere under tests/, where B is
weaker than A or a second outcome (`"18 of 19 students have something to fix" in page or "students have
something to fix" in page` passed a class page that said "all 2 students passed"). A condition that really
has two cases is written as two cases (`if`), each with its own assertion."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _default(node: ast.BoolOp) -> bool:
    """`x or []`, `x or ""`, `x or 0`: a value with its default, not a second outcome."""
    last = node.values[-1]
    return isinstance(last, ast.Constant) or (isinstance(last, (ast.List, ast.Tuple, ast.Set)) and not last.elts) \
        or (isinstance(last, ast.Dict) and not last.keys)


def or_assertions(source: str) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assert) and any(isinstance(b, ast.BoolOp) and isinstance(b.op, ast.Or)
                                                and not _default(b) for b in ast.walk(node.test)):
            found.append((node.lineno, ast.unparse(node.test)))
    return found


def test_the_check_finds_an_or_weakened_assertion():
    assert or_assertions('assert "18 of 19" in page or "of 19" in page\n') == [(1, "'18 of 19' in page or 'of 19' in page")]
    assert or_assertions("assert all(a or b for a, b in pairs)\n") == [(1, "all((a or b for a, b in pairs))")]
    assert or_assertions("assert a and b, a or b\n") == []  # the message may say anything
    assert or_assertions("assert [p for s in steps for p in s.get('problems') or []] == []\n") == []  # a default
    assert or_assertions("assert (got or 'x') == 'x'\n") == []


def test_no_assertion_under_tests_accepts_two_outcomes():
    found = {f"{path.relative_to(TESTS)}:{line}": text for path in sorted(TESTS.rglob("*.py"))
             for line, text in or_assertions(path.read_text(encoding="utf-8"))}
    assert found == {}
