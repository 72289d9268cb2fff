"""tests/ is laid out like runbook_lib/: a test file lives in the folder of what it
tests (tests/<package>/test_<module>.py, tests/real/, tests/fleet/), never flat in tests/, where only the
helpers the tests import and conftest.py are; and no two test files share a name, which pytest's default import
mode (no __init__.py) needs."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_no_test_file_is_flat_in_tests():
    assert sorted(p.name for p in TESTS.glob("test_*.py")) == []


def test_no_two_test_files_share_a_name():
    names = Counter(p.name for p in TESTS.rglob("test_*.py") if "fixtures" not in p.parts)
    assert [name for name, n in names.items() if n > 1] == []



def test_no_test_reads_ci_or_the_terminal():
    """A user's `make test` and CI's run the same tests with the same result (issue 53: a test passed only with
    CI=true set): no test or helper reads CI, TERM, the terminal's width, colour switches or isatty."""
    import re

    names = "|".join(["CI", "TERM", "COLUMNS", "NO_COLOR", "FORCE_COLOR"])
    reads = re.compile(r"environ(\.get)?[\[(]['\"](" + names + r")['\"]|getenv\(['\"](" + names + r")['\"]"
                       r"|\bisatty\(|get_terminal_size")
    found = [f"{p.relative_to(TESTS)}:{n}" for p in sorted(TESTS.rglob("*.py")) if p.name != Path(__file__).name
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if reads.search(line)]
    assert found == []


def test_no_module_defines_a_name_twice():
    """A second top-level ``def`` of one name silently replaces the first for every importer (a helper once shadowed
    another of its name in tests/helpers.py, and only CI's full run found it): one name, one definition."""
    import ast

    project = TESTS.parent
    found = []
    for p in sorted([*TESTS.rglob("*.py"), *(project / "runbook_lib").rglob("*.py"), *(project / "bench").rglob("*.py"),
                     *(project / "tools").rglob("*.py")]):
        if "fixtures" in p.parts:
            continue
        names = Counter(n.name for n in ast.parse(p.read_text(encoding="utf-8")).body
                        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
        found += [f"{p.relative_to(project)}: {name}" for name, n in names.items() if n > 1]
    assert found == []
