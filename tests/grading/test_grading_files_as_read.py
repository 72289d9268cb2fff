"""The grading folder as the programs that take it read it: grades.json and every student's results.json as bytes
(UTF-8 text a person can read, not `\\uXXXX` escapes; two-space indent; one line break at the end), each student's
results.json that student's own; and what a process whose locale is not UTF-8 writes. In-process (the grading model of docs/TESTING.md's mutation testing)."""

from __future__ import annotations

import json
import locale

import pytest

from runbook_lib.grading import grade
from test_every_count_a_page_shows import CLASS, build_class


def test_grades_json_is_utf8_text_with_a_two_space_indent(tmp_path):
    result = build_class(tmp_path)
    data = (tmp_path / grade.GRADES_NAME).read_bytes()
    text = data.decode("utf-8")
    assert "\\u" not in text and "실패 / failed" in text  # Korean as itself: a person reads grades.json too
    lines = text.split("\n")
    assert lines[0] == "{" and lines[1] == '  "schema": "nvidia-runtime-runbook/grades/1",'
    assert lines[-2:] == ["}", ""]  # one line break after the closing brace, no more
    assert json.loads(data) == {"schema": "nvidia-runtime-runbook/grades/1", "ok": False, "errors": [],
                                "students": json.loads(text)["students"]}  # errors: the grading machine's (none)
    assert [s["extra_data"]["label"] for s in json.loads(data)["students"]] == [s.label for s in result.students]


def test_each_students_results_json_is_that_students_own(tmp_path):
    build_class(tmp_path)
    grades = json.loads((tmp_path / grade.GRADES_NAME).read_text(encoding="utf-8"))
    for label, (_, passed) in CLASS.items():
        data = (tmp_path / label / grade.RESULTS_NAME).read_bytes()
        mine = json.loads(data)
        assert data.decode("utf-8").startswith('{\n  "score": ') and data.endswith(b"}\n"), label
        assert mine["extra_data"]["label"] == label and mine["extra_data"]["ok"] is passed
        assert mine["output"].startswith(f"{label}: {'통과 / passed' if passed else '실패 / failed'} (")
        assert mine == next(s for s in grades["students"] if s["extra_data"]["label"] == label)


def test_the_files_are_utf8_whatever_the_locale(tmp_path):
    """A grading run in a process whose locale is ASCII (a bare `LANG=C` service) writes the same UTF-8 files."""
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        if locale.getpreferredencoding(False).lower().replace("-", "") in ("utf8", "utf_8"):
            pytest.fail("the C locale still reads as UTF-8 here: this test could not fail")
        build_class(tmp_path)
    finally:
        locale.setlocale(locale.LC_CTYPE, before)
    assert "1단계" in (tmp_path / "a-passed" / grade.RESULTS_NAME).read_bytes().decode("utf-8")
    assert "학생 / student" in (tmp_path / grade.INDEX_NAME).read_bytes().decode("utf-8")
