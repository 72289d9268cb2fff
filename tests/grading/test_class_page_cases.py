"""The class page's rules on the records a class hands in beside the usual ones: a failed step that recorded no
findings (an older notebook, a step that failed on its own message), one finding met twice by one student, a
step recorded without a title, and a class whose names are all short or all Korean. tests/grading/test_class_page.py
pins the whole page of an ordinary class; these pin the part each case changes."""

from __future__ import annotations

import re

from runbook_lib.grading import class_view
from runbook_lib.grading.model import ClassGrade, Student

WRONG = {"code": "options.systemd_cgroup.wrong", "what": {"ko": "값이 틀렸습니다", "en": "the value is wrong"}}


def rec(n, sid, status, problems=(), message=None, title=True):
    r = {"step": n, "id": sid, "status": status, "problems": list(problems),
         "message": message or {"ko": f"{sid} 메시지", "en": f"{sid} message"}}
    if title:
        r["title"] = {"ko": f"{n}단계", "en": f"step {n}"}
    return r


def klass(tmp_path, *students) -> ClassGrade:
    return ClassGrade(tmp_path, [Student(label, f"/srv/{label}", False, steps, None, tmp_path / label)
                                 for label, steps in students])


def test_a_failed_step_without_findings_is_a_mistake_of_its_own_named_by_the_step(tmp_path):
    result = klass(tmp_path,
                   ("kim", [rec(2, "runtime", "failed", message={"ko": "표가 없음", "en": "no table"})]),
                   ("lee", [rec(2, "runtime", "failed", message={"ko": "표가 없음", "en": "no table"})]),
                   ("sun", [rec(3, "options", "failed", [WRONG])]))
    found = [(m.key, m.step, m.step_id, m.students, m.example) for m in class_view.common_mistakes(result)]
    assert found == [("runtime", 2, "runtime", ["kim", "lee"], {"ko": "표가 없음", "en": "no table"}),
                     ("options.systemd_cgroup.wrong", 3, "options", ["sun"], WRONG["what"])]


def test_a_finding_met_twice_by_one_student_counts_that_student_once(tmp_path):
    twice = [rec(3, "options", "failed", [WRONG, WRONG]),
             rec(4, "default", "failed", [{**WRONG, "what": {"ko": "또", "en": "again"}}])]
    result = klass(tmp_path, ("kim", twice), ("lee", [rec(3, "options", "failed", [WRONG])]))
    (mistake,) = class_view.common_mistakes(result)
    assert (mistake.key, mistake.count, mistake.students, mistake.step_id) == (
        "options.systemd_cgroup.wrong", 2, ["kim", "lee"], "options")
    assert re.findall(r'vertical-align:top">(\d+)</td>', class_view.mistakes_html(result)) == ["2"]


def test_a_finding_met_again_does_not_hide_the_findings_after_it_in_that_step(tmp_path):
    # two runtimes with the same wrong value, then a wrong binary name: kim made both mistakes
    binary = {"code": "options.binary_name.wrong", "what": {"ko": "이름이 틀렸습니다", "en": "the name is off"}}
    result = klass(tmp_path, ("kim", [rec(3, "options", "failed", [WRONG, WRONG, binary])]),
                   ("lee", [rec(3, "options", "failed", [WRONG])]))
    found = [(m.key, m.students) for m in class_view.common_mistakes(result)]
    assert found == [("options.systemd_cgroup.wrong", ["kim", "lee"]), ("options.binary_name.wrong", ["kim"])]


def test_a_step_recorded_without_a_title_has_an_empty_title_over_its_column(tmp_path):
    result = klass(tmp_path, ("kim", [rec(1, "prepare", "passed", title=False), rec(2, "runtime", "passed")]))
    heads = re.findall(r'<th style="text-align:left" title="([^"]*)">', class_view.table_html(result))
    assert heads == [" / ", "2단계 / step 2"]


def test_a_class_of_short_names_keeps_room_for_eight_columns_and_korean_names_count_double(tmp_path):
    def left(*labels):
        svg = class_view.svg(klass(tmp_path, *[(label, [rec(1, "prepare", "passed")]) for label in labels]))
        return {float(x) for x in re.findall(r'<text class="row" x="([\d.]+)"', svg)}

    assert left("kim", "lee") == {12 + 8 * 8 - 8}  # 8 columns at least: a short class's names are not cut
    assert left("kim", "abcdefghij") == {12 + 8 * 10 - 8}
    assert left("김민준김민", "lee") == {12 + 8 * 10 - 8}  # five Hangul syllables: ten columns


def test_the_picture_keeps_room_for_four_characters_over_short_or_no_columns(tmp_path):
    def top(*steps):
        svg = class_view.svg(klass(tmp_path, ("kim", list(steps))))
        (y,) = re.findall(r'<text class="row" x="[\d.]+" y="([\d.]+)"', svg)
        return round(float(y) - 22 * 0.7, 6)  # a row's name sits 0.7 of a square below the top of its row

    assert top() == 16 + 7 * 4  # a student whose run left no step: the header band is still there
    assert top(rec("pod", "pod", "failed")) == 16 + 7 * 4  # "pod", a step that is its own number: 3 characters
    assert top(rec(6, "cdi", "passed")) == 16 + 7 * 5  # "6 cdi"


def test_a_blocked_step_is_its_own_sign_in_the_grid(tmp_path):
    result = klass(tmp_path, ("kim", [rec(2, "runtime", "failed"), rec(3, "options", "blocked"),
                                      rec(4, "default", "skipped"), rec(5, "parse", "passed")]))
    cells = re.findall(r'<td style="background:(#\w+);[^"]*" title="(\w+)">(.)</td>', class_view.table_html(result))
    assert cells == [("#cf222e", "failed", "✗"), ("#8c959f", "blocked", "…"), ("#9a6700", "skipped", "–"),
                     ("#1a7f37", "passed", "✓")]
