"""The instructor's and the student's pages in a real browser (Debian's chromium, headless, tools/chromium.py):
the class page, a feedback page and the executed class notebook's HTML (nbconvert's lab template, JupyterLab's
stylesheet). Every link opens; no two labels of the class picture overlap at 40 students × 10 steps; every
table cell with text is left-aligned; a lesson shows its two languages on lines of their own."""

from __future__ import annotations

import copy
import json
import os
import sys
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

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
def class_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("class")
    class_demo.make_class(folder)
    return folder


@pytest.fixture(scope="module")
def graded(tmp_path_factory, class_folder):
    out = tmp_path_factory.mktemp("grades")
    class_demo.run_class_notebook(class_folder, out)
    return out


def links(browser) -> list[str]:
    return browser.evaluate("[...document.querySelectorAll('a[href]')].map(a => a.href)")


def follow_every_link(browser, page: Path) -> list[str]:
    browser.open(page.as_uri())
    found = sorted({urldefrag(u)[0] for u in links(browser)} - {page.as_uri()})
    for url in found:
        if url.endswith(".csv"):  # a browser downloads it (text/csv): the file is there (tests/grading reads it)
            assert Path(unquote(urlparse(url).path)).is_file(), url
            continue
        browser.open(url)
        assert browser.evaluate("location.href") == url, url  # a missing file is chrome's error page
        assert browser.evaluate("document.documentElement.outerHTML.length") > 100, url
    return found


def test_every_link_of_the_class_page_the_class_notebook_and_a_feedback_page_opens(browser, graded):
    """Issue 41: the class page linked only the feedback pages, and a feedback page linked nowhere. Every link is
    followed and its target checked: the page it should be, not only a page."""
    every_student = [f"{label}/feedback.html" for label in class_demo.CLASS]
    for page in ("index.html", "class.html"):
        opened = follow_every_link(browser, graded / page)
        for name in every_student + ["grades.json", "grades.csv", "junit.xml"]:
            assert (graded / name).as_uri() in opened, (page, name)
    opened = follow_every_link(browser, graded / "lee" / "feedback.html")
    for name in ("index.html", "lee/results.json"):
        assert (graded / name).as_uri() in opened, name
    browser.open((graded / "grades.json").as_uri())
    assert json.loads(browser.evaluate("document.body.innerText"))["schema"].startswith("nvidia-runtime-runbook/")
    browser.open((graded / "lee" / "feedback.html").as_uri())
    assert "7/8" in browser.evaluate("document.querySelector('.score').innerText")


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


def test_no_two_labels_of_the_class_picture_overlap_at_40_students(browser, graded, class_folder, tmp_path):
    from runbook_lib.grading import class_view
    from runbook_lib.grading.model import ClassGrade, Student
    from runbook_lib.grading.verdicts import check

    graded_class = json.loads((graded / "grades.json").read_text())
    assert len(graded_class["students"]) == len(class_demo.CLASS)
    students = []  # the graded students' own step records (every step, as the grading judged it), 40 in turn
    for label in class_demo.CLASS:
        students.append((label, check({"root": str(class_folder / label)})["steps"]))
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


LEGEND = """(() => {
  const rgb = c => getComputedStyle(c).backgroundColor;
  const cells = [...document.querySelectorAll('td[title]')].map(c => [c.title, rgb(c)]);
  const legend = [...document.querySelectorAll('.legend')].map(l => {
    const r = l.getBoundingClientRect(); return {text: l.innerText, colour: rgb(l), l: r.left, r: r.right, t: r.top, b: r.bottom};
  });
  return {cells, legend};
})()"""


def _png_pixels(path: Path) -> set[tuple[int, int, int]]:
    """The colours of a PNG chromium wrote (8-bit RGB or RGBA, not interlaced): zlib and the five row filters."""
    import struct
    import zlib

    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, kind = 8, b"", 0, 0, 0
    while pos < len(data):
        (length,), name = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if name == b"IHDR":
            width, height, depth, kind, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and kind in (2, 6) and interlace == 0
        elif name == b"IDAT":
            idat += body
        pos += 12 + length
    step = 3 if kind == 2 else 4
    raw, stride, prev, seen = zlib.decompress(idat), width * step, bytearray(width * step), set()
    for y in range(height):
        kind_of_row, row = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = row[i - step] if i >= step else 0
            b, c = prev[i], prev[i - step] if i >= step else 0
            pred = (0, a, b, (a + b) // 2, _paeth(a, b, c))[kind_of_row]
            row[i] = (row[i] + pred) & 0xFF
        seen.update(tuple(row[x:x + 3]) for x in range(0, stride, step))
        prev = row
    return seen


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def _hex(rgb: str) -> tuple[int, int, int]:
    return tuple(int(v) for v in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3])


def test_the_class_pages_screenshot_shows_every_colour_of_its_legend_and_no_text_overlaps(browser, graded, tmp_path):
    """Issue 41: the legend said grey was "no record" where grey meant blocked. The page is photographed (the
    picture kept for CI's artefacts) and the picture looked at: every colour the grid uses is in the legend with
    its own words and is on the screenshot; no two legend items, and no two of the picture's labels, overlap."""
    from runbook_lib.steps.status import look

    browser.open((graded / "index.html").as_uri())
    measured = browser.evaluate(LEGEND)
    used = {title: colour for title, colour in measured["cells"]}
    legend = {item["colour"]: item["text"] for item in measured["legend"]}
    assert set(used.values()) == set(legend)  # each colour of the grid, and only those, explained
    for state, colour in used.items():
        assert look(state).said.en in legend[colour] and look(state).said.ko in legend[colour], state
    assert "blocked" in used and "no record" not in " ".join(legend.values())  # jung's steps 2-5 wait for step 1
    boxes = measured["legend"]
    assert [(a["text"], b["text"]) for i, a in enumerate(boxes) for b in boxes[i + 1:]
            if a["l"] < b["r"] and b["l"] < a["r"] and a["t"] < b["b"] and b["t"] < a["b"]] == []
    assert browser.evaluate(OVERLAPS)["overlaps"] == []
    shot = Path(os.environ.get("RUNBOOK_SCREENSHOTS") or tmp_path) / "class-page.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    browser.screenshot(str(shot))
    pixels = _png_pixels(shot)
    for colour in legend:
        assert _hex(colour) in pixels, colour
