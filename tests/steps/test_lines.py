"""The one comparison rule of the toolkit files' lines (runbook_lib/steps/lines.py), as a check cell asks it
(runbook_lib/steps/expect.py, `Expect.line`) on a lab root: a line's value is everything after its first
`=`, and a line that is not there never holds a value, a list of names included. In process, for `make mutate`."""

from __future__ import annotations

import pytest

from grading_helpers import TOOLKIT, lab_root
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run
from runbook_lib.steps.expect import Expect
from runbook_lib.steps.lines import EXACT, Rule, value_matches, value_of

PARSED = "/root/toolkit/parsed.txt"


def _cell(root) -> Expect:
    return Expect(Run(validate(root=str(root), mode="check")), "parsed")


@pytest.mark.parametrize("written, key, value", [
    ("VERSION=2\nRUNTIMES=nvidia,runc\n", "VERSION", "2"),
    ("VERSION=2=3\n", "VERSION", "2=3"),                       # a value holding `=` is the whole rest of the line
    ("VERSION=2\nVERSION=3\n", "VERSION", "2"),                # the first line of that key
    ("VERSIONS=2\n", "VERSION", None),                         # another key is not this one
    ("", "VERSION", None),
    (None, "VERSION", None),                                   # no file at all
])
def test_a_lines_value_is_everything_after_its_first_equals_sign(written, key, value):
    assert value_of(written, key) == value


def test_a_missing_line_holds_no_value_not_even_an_empty_list(tmp_path):
    root = lab_root(tmp_path)
    (root / TOOLKIT / "parsed.txt").write_text("VERSION=2\n")  # the RUNTIMES line left out
    cell = _cell(root)
    assert cell.line(PARSED, "RUNTIMES", ["nvidia", "runc"]) is False
    assert cell.line(PARSED, "VERSION", 2) is True
    assert [c.ok for c in cell.checks] == [False, True]
    lists = Rule(lists=("RUNTIMES",))
    for rule in (lists, EXACT):  # either way round, a list key or not
        assert value_matches(rule, "RUNTIMES", None, "nvidia,runc") is False
        assert value_matches(rule, "RUNTIMES", "nvidia,runc", None) is False
        assert value_matches(rule, "RUNTIMES", None, None) is True
    assert value_matches(lists, "RUNTIMES", "runc, nvidia", "nvidia,runc") is True
