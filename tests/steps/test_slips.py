"""The slips of steps/_files.py, each undone exactly: the one habit taken out, nothing else of the line changed,
and a line without that habit left as it is (a slip that undid more would name a wrong value a slip)."""

from __future__ import annotations

import pytest

from runbook_lib.steps import _files
from runbook_lib.steps.lines import EXACT, Rule


@pytest.mark.parametrize("undo, line, undone", [
    # export KEY=value: only a leading `export` and the blanks after it
    (_files._exported, "export KEY=v", "KEY=v"),
    (_files._exported, "export   XKEY=v", "XKEY=v"),
    (_files._exported, "export \tKEY=v", "\tKEY=v"),
    (_files._exported, "KEY=a b", "KEY=a b"),
    (_files._exported, "exported=1", "exported=1"),
    (_files._exported, "export", "export"),
    # KEY: value, in a line with no =: the colon (and the blanks after it) as the =
    (_files._colon, "KEY: v", "KEY=v"),
    (_files._colon, "KEY:v", "KEY=v"),
    (_files._colon, "KEY: a:b", "KEY=a:b"),
    (_files._colon, "KEY: \tv", "KEY=\tv"),
    (_files._colon, "KEY: Xv", "KEY=Xv"),
    (_files._colon, "KEY=v", "KEY=v"),
    (_files._colon, "KEY=a:b", "KEY=a:b"),
    # KEY = value: the blanks and tabs right around the first =
    (_files._unspaced, "KEY = v", "KEY=v"),
    (_files._unspaced, "KEY\t=\tv", "KEY=v"),
    (_files._unspaced, "KEY = a=b", "KEY=a=b"),
    (_files._unspaced, "KEYX = Xv", "KEYX=Xv"),
    (_files._unspaced, "KEY\f= \fv", "KEY\f=\fv"),
    (_files._unspaced, "KEY", "KEY"),
    # KEY="value", KEY='value': the quotes around the whole value
    (_files._unquoted, 'KEY="v"', "KEY=v"),
    (_files._unquoted, "KEY='v'", "KEY=v"),
    (_files._unquoted, 'KEY="a=b"', "KEY=a=b"),
    (_files._unquoted, 'KEY="v\'', 'KEY="v\''),
    (_files._unquoted, 'KEY="ab', 'KEY="ab'),
    (_files._unquoted, 'KEY=ab"', 'KEY=ab"'),
    (_files._unquoted, 'KEY="', 'KEY="'),
    (_files._unquoted, "KEY=aa", "KEY=aa"),
    (_files._unquoted, 'KEY=""', "KEY="),
    (_files._unquoted, "KEY=XvX", "KEY=XvX"),
    (_files._unquoted, '"KEY"', '"KEY"'),
    # key=value: the name in capitals, the value as it is
    (_files._upper_key, "runtime=nvidia", "RUNTIME=nvidia"),
    (_files._upper_key, "runtime", "runtime"),
    (_files._upper_key, "key=a=b", "KEY=a=b"),
    # Python's booleans
    (_files._toml_boolean, "SYSTEMD_CGROUP=True", "SYSTEMD_CGROUP=true"),
    (_files._toml_boolean, "SYSTEMD_CGROUP=False", "SYSTEMD_CGROUP=false"),
])
def test_a_slip_is_undone_exactly(undo, line, undone):
    assert undo(line) == undone


def test_the_slips_are_undone_in_the_order_of_the_table():
    """`export key: "v"` takes three, each after the one before it has been undone."""
    assert [name for name, _ in _files.SLIPS] == ["export", "colon", "spaces_around_equals", "quoted", "key_case",
                                                 "python_boolean"]
    assert _files._slips(EXACT, [(1, 'export key: "v"', "KEY=v")]) == [
        (1, 'export key: "v"', "KEY=v", ("export", "colon", "quoted", "key_case"))]


def test_a_line_with_every_slip_is_named_with_all_of_them():
    assert _files._slips(EXACT, [(4, 'export systemd_cgroup : "True"', "SYSTEMD_CGROUP=true")]) == [
        (4, 'export systemd_cgroup : "True"', "SYSTEMD_CGROUP=true", tuple(name for name, _ in _files.SLIPS))]


def test_the_fewest_slips_that_explain_a_line_are_named():
    assert _files._slips(EXACT, [(2, "KEY = v", "KEY=v")]) == [(2, "KEY = v", "KEY=v", ("spaces_around_equals",))]


def test_a_list_value_is_compared_by_its_rule():
    rule = Rule(lists=("RUNTIMES",))
    assert _files._slips(rule, [(2, 'RUNTIMES="nvidia, runc"', "RUNTIMES=runc,nvidia")]) == [
        (2, 'RUNTIMES="nvidia, runc"', "RUNTIMES=runc,nvidia", ("quoted",))]
    assert _files._slips(EXACT, [(2, 'RUNTIMES="nvidia,runc"', "RUNTIMES=runc,nvidia")]) is None


@pytest.mark.parametrize("wrong", [
    [(1, "KEY=v", None)],                              # a line too many
    [(1, None, "KEY=v")],                              # a line missing
    [(1, 'KEY="w"', "KEY=v")],                         # a wrong value, quoted
    [(1, "KEY = v", "KEY=v"), (2, "OTHER=x", "OTHER=y")],  # one slip, and one wrong value beside it
])
def test_a_line_no_slip_explains_means_no_slips_at_all(wrong):
    assert _files._slips(EXACT, wrong) is None
