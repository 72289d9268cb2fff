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

