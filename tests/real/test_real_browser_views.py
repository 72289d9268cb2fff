"""The instructor's and the student's pages in a real browser (Debian's chromium, headless, tools/chromium.py):
the class page, a feedback page and the executed class notebook's HTML (nbconvert's lab template, JupyterLab's
stylesheet). Every link opens; no two labels of the class picture overlap at 40 students × 10 steps; every
table cell with text is left-aligned; a lesson shows its two languages on lines of their own."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from urllib.parse import urldefrag

import pytest

import realenv

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import chromium  # noqa: E402
import class_demo  # noqa: E402

OVERLAPS = """(() => {
  const boxes = [...document.querySelectorAll('svg text')].map(t => {
    const r = t.getBoundingClientRect(); return {text: t.textContent, l: r.left, r: r.right, t: r.top, b: r.bottom};
  });
  const svg = document.querySelector('svg').getBoundingClientRect();
  const out = [];
  boxes.forEach((a, i) => {
    if (a.l < svg.left || a.r > svg.right || a.t < svg.top || a.b > svg.bottom) out.push(['outside', a.text]);
    boxes.slice(i + 1).forEach(b => {
      if (a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b) out.push([a.text, b.text]);
    });
  });
  return {count: boxes.length, overlaps: out};
})()"""

ALIGNMENT = """[...document.querySelectorAll('td, th')]
  .filter(c => c.textContent.trim() && !['✓', '✗', '…', '–'].includes(c.textContent.trim()))
  .map(c => [c.textContent.trim().slice(0, 30), getComputedStyle(c).textAlign])"""


@pytest.fixture(scope="module")
def browser():
    binary = chromium.find() or realenv.need_program("chromium")
    with chromium.Chromium(binary) as b:
        yield b


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("class")
    out = tmp_path_factory.mktemp("grades")
    class_demo.make_class(folder)
    class_demo.run_class_notebook(folder, out)
    return out


def links(browser) -> list[str]:
    return browser.evaluate("[...document.querySelectorAll('a[href]')].map(a => a.href)")


def follow_every_link(browser, page: Path) -> list[str]:
    browser.open(page.as_uri())
    found = sorted({urldefrag(u)[0] for u in links(browser)} - {page.as_uri()})
    for url in found:
        browser.open(url)
        assert browser.evaluate("location.href") == url, url  # a missing file is chrome's error page
        assert browser.evaluate("document.documentElement.outerHTML.length") > 100, url
    return found


def test_every_link_of_the_class_page_the_class_notebook_and_a_feedback_page_opens(browser, graded):
    opened = follow_every_link(browser, graded / "index.html")
    assert (graded / "kim" / "feedback.html").as_uri() in opened
    opened = follow_every_link(browser, graded / "class.html")
    for name in ("kim/feedback.html", "lee/feedback.html", "lee/run.ipynb", "grades.json", "junit.xml", "index.html"):
        assert (graded / name).as_uri() in opened, name
    follow_every_link(browser, graded / "lee" / "feedback.html")


def test_the_class_notebooks_tables_are_left_aligned_under_jupyterlabs_stylesheet(browser, graded):
    browser.open((graded / "class.html").as_uri())
    cells = browser.evaluate(ALIGNMENT)
    assert len(cells) > 20
    assert [c for c in cells if c[1] != "left"] == []


def test_a_lesson_shows_one_language_per_line(browser, graded):
    browser.open((graded / "lee" / "feedback.html").as_uri())
    lines = browser.evaluate("""[...document.querySelectorAll('.lesson')].map(l => {
        const ko = l.querySelector('[lang=ko]').getBoundingClientRect(), en = l.querySelector('[lang=en]').getBoundingClientRect();
        return [ko.bottom, en.top]; })""")
    assert lines and all(ko_bottom <= en_top for ko_bottom, en_top in lines)
    text = browser.evaluate("document.body.innerText")
    assert "containerd_bin" not in text and "unshare" not in text  # the operator's hint is not the student's


def test_no_two_labels_of_the_class_picture_overlap_at_40_students(browser, graded, tmp_path):
    from runbook_lib.evidence.archive import records
    from runbook_lib.grading import class_view
    from runbook_lib.grading.model import ClassGrade, Student

    graded_class = json.loads((graded / "grades.json").read_text())
    assert len(graded_class["students"]) == 5
    students = []  # the graded students' own step records, 40 students in turn
    for label in class_demo.CLASS:
        steps, summary = records(json.loads((graded / label / "run.ipynb").read_text()))
        students.append((label, (summary or {}).get("steps") or steps))
    names = ["김민준", "이서연", "박지호", "최하은", "정우진", "kim-2", "lee-long-name", "park_j", "choi", "jung"]
    big = ClassGrade(tmp_path)
    for n in range(40):
        label, steps = students[n % len(students)]
        big.students.append(Student(f"{names[n % len(names)]}-{n:02d}", "/srv/class/x", False, copy.deepcopy(steps)))
    from runbook_lib.steps import STEPS
    steps = len(big.step_ids())
    assert steps == len(STEPS) >= 10  # every step the runbook has, 10 or more
    page = tmp_path / "index.html"
    page.write_text(class_view.page(big), encoding="utf-8")
    browser.open(page.as_uri())
    measured = browser.evaluate(OVERLAPS)
    assert measured["count"] == 40 + steps
    assert measured["overlaps"] == []
