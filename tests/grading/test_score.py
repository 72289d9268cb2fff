"""Issue 41: every student graded out of the lab's same total (runbook_lib/grading/score.py), identically in
results.json, grades.json, junit.xml, the class page and the class notebook. The class is the issue's: made with
`runbook lab-init` (its --mistake kinds), graded with `runbook grade` and with notebooks/class.ipynb.

kim did nothing wrong; lee, park and yoon made one mistake each (a string boolean, an unquoted header, a BinaryName
typo), choi two; jung handed in an empty folder. One mistake costs its own step's point: the steps whose files
are right once it is fixed keep theirs (they were blocked, out of 0, so every student had another maximum)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from runbook_lib.grading.model import ClassGrade, Student
from runbook_lib.grading.score import load_points, total

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import class_demo  # noqa: E402

CLASS = {"kim": None, "lee": "string-boolean", "park": "unquoted-header", "yoon": "options-typo",
         "choi": "string-boolean,handler-mismatch", "jung": ""}
SCORES = {"kim": (8, 8), "lee": (7, 8), "park": (7, 8), "yoon": (7, 8), "choi": (6, 8), "jung": (0, 8)}


def runbook(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runbook_lib.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=900)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("class")
    for label, mistake in CLASS.items():
        if mistake is None:
            made = runbook("lab-init", "--finished", folder / label)
        elif mistake == "":
            (folder / label).mkdir()
            continue
        else:
            made = runbook("lab-init", "--mistake", mistake, folder / label)
        assert made.returncode == 0, made.stderr
    out = tmp_path_factory.mktemp("grades")
    proc = runbook("grade", "--out", out, "--jobs", "2", *sorted(folder.iterdir()))
    assert proc.returncode == 1, proc.stderr[-3000:]
    notebook_out = tmp_path_factory.mktemp("notebook")
    class_demo.run_class_notebook(folder, notebook_out)
    return {"folder": folder, "out": out, "notebook": notebook_out}


def test_results_json_and_grades_json_score_every_student_on_the_same_total(graded):
    grades = json.loads((graded["out"] / "grades.json").read_text(encoding="utf-8"))
    got = {s["extra_data"]["label"]: (s["score"], s["max_score"]) for s in grades["students"]}
    assert got == SCORES
    for s in grades["students"]:
        own = json.loads((graded["out"] / s["extra_data"]["label"] / "results.json").read_text(encoding="utf-8"))
        assert own == s
        assert own["score"] == sum(t["score"] for t in own["tests"])
        assert own["max_score"] == sum(t["max_score"] for t in own["tests"])
        assert [t["number"] for t in own["tests"]] == [str(n) for n in range(1, 9)]  # 9, restart, pod: no tests


def test_one_mistake_costs_its_own_steps_point_only(graded):
    def zero(label):
        s = json.loads((graded["out"] / label / "results.json").read_text(encoding="utf-8"))
        return [t["number"] for t in s["tests"] if t["score"] == 0]

    assert zero("lee") == ["3"] and zero("yoon") == ["3"]  # parsed.txt and report.txt already right: kept
    assert zero("park") == ["2"]  # its options, parsed.txt, the handler and report.txt are right once quoted
    assert zero("choi") == ["3", "7"]


def test_junit_xml_carries_the_same_numbers(graded):
    root = ET.parse(graded["out"] / "junit.xml").getroot()
    got = {}
    for suite in root.iter("testsuite"):
        props = {p.get("name"): p.get("value") for p in suite.iter("property")}
        tests, failures, skipped = (int(suite.get(k)) for k in ("tests", "failures", "skipped"))
        assert tests == 8  # no always-skipped case (step 9, the restart, the pod) in a lab
        assert not [c for c in suite.iter("testcase") if c.find("skipped") is not None
                    and "fix step" not in c.find("skipped").get("message")]
        assert tests - failures - skipped == float(props["score"])  # one point a step: the passed cases
        got[suite.get("name")] = (float(props["score"]), float(props["max_score"]))
    assert got == SCORES


def test_the_class_page_and_the_class_notebook_show_the_same_scores(graded):
    page = (graded["out"] / "index.html").read_text(encoding="utf-8")
    shown = dict(re.findall(r'<a href="(\w+)/feedback.html">\1</a>.*?class="score">([\d.]+/[\d.]+)</td>', page))
    assert shown == {label: f"{a}/{b}" for label, (a, b) in SCORES.items()}
    nb = json.loads((graded["notebook"] / "class.ipynb").read_text(encoding="utf-8"))
    text = "".join("".join(o.get("data", {}).get("text/plain", "")) for c in nb["cells"] for o in c.get("outputs", []))
    for label, (a, b) in SCORES.items():
        assert f"{label} ({a}/{b}):" in text, label


def test_a_student_who_did_nothing_is_one_common_mistake(graded):
    page = (graded["out"] / "index.html").read_text(encoding="utf-8")
    mistakes = page[page.index("자주 한 실수"):]
    assert mistakes.count("jung") == 1 and "the lab was not started" in mistakes


def _student(steps):
    return Student("kim", "/srv/kim", False, steps)


def _rec(step, sid, status):
    return {"step": step, "id": sid, "title": {"ko": sid, "en": sid}, "status": status, "problems": []}


def test_a_course_file_gives_steps_their_own_points(tmp_path):
    course = tmp_path / "course.yaml"
    course.write_text("points:\n  options: 2\n  8: 0.5\n", encoding="utf-8")
    points = load_points(course)
    assert points == {"options": 2.0, "8": 0.5}
    steps = [_rec(n, i, "passed") for n, i in enumerate(("prepare", "runtime", "options", "default", "parse", "cdi",
                                                          "runtimeclass", "report"), 1)]
    steps[2]["status"] = "failed"
    assert total(steps, points) == (6.5, 8.5)  # six steps of 1, options 2 (failed), report 0.5
    assert total(steps) == (7.0, 8.0)


@pytest.mark.parametrize("text, said", [
    ("points:\n  option: 2\n", "names no step of the runbook: option"),
    ("points:\n  options: -1\n", "not a number of 0 or more: -1"),
    ("options: 2\n", "has no points table"),
])
def test_a_wrong_course_file_is_refused_naming_the_file_and_what_was_expected(tmp_path, text, said):
    course = tmp_path / "course.yaml"
    course.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as refused:
        load_points(course)
    assert said in str(refused.value) and str(course) in str(refused.value)
    (tmp_path / "kim").mkdir()
    proc = runbook("grade", "--out", tmp_path / "grades", "--points", course, tmp_path / "kim")
    assert proc.returncode == 2 and said in proc.stderr + proc.stdout


def test_a_points_file_that_cannot_be_read_is_refused_in_both_languages(tmp_path):
    """It was Python's `[Errno 2] No such file or directory: '...'`, in English only, with a repr (the words of
    every way: tests/cli/test_parameters_file.py)."""
    (tmp_path / "kim").mkdir()
    proc = runbook("grade", "--out", tmp_path / "grades", "--points", tmp_path / "nope.yaml", tmp_path / "kim")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (f"점수 파일 자리에 파일이 없습니다: {tmp_path / 'nope.yaml'}. 경로를 확인하세요 "
                           f"(예: --points course.yaml).\nno points file at {tmp_path / 'nope.yaml'}; check the path "
                           "(e.g. --points course.yaml).\n")


def test_a_points_file_with_a_yaml_syntax_error_names_its_line_and_column(tmp_path):
    """It was a traceback of libyaml's ParserError."""
    course = tmp_path / "course.yaml"
    course.write_text("points: {options: 2\n", encoding="utf-8")
    (tmp_path / "kim").mkdir()
    proc = runbook("grade", "--out", tmp_path / "grades", "--points", course, tmp_path / "kim")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.splitlines() == [
        f"점수 파일 자리의 파일을 YAML 로 읽을 수 없습니다 (2번째 줄 1번째 칸): {course}: did not find expected ',' or "
        "'}'. 그 줄의 들여쓰기와 괄호, 콜론(:) 뒤의 공백을 확인하세요.",
        f"the points file given is not readable as YAML (line 2, column 1): {course}: did not find expected ',' or "
        "'}'; check that line's indentation, brackets and the space after each colon."]


def test_grading_into_a_folder_the_class_glob_picks_up_says_why(tmp_path):
    """`runbook grade --out /srv/class/grades /srv/class/*` a second time: the glob picks the grades folder as a
    student. The refusal said only "--out is inside a student's root"."""
    (tmp_path / "kim").mkdir()
    (tmp_path / "grades").mkdir()
    proc = runbook("grade", "--out", tmp_path / "grades", *sorted(tmp_path.iterdir()))
    said = proc.stderr + proc.stdout
    assert proc.returncode == 2
    assert "picked up an earlier grading's output folder as a student" in said
    assert "put the grades outside the class folder" in said and "반 폴더 밖에" in said
    assert not (tmp_path / "grades" / "grades.json").exists()


def test_grading_md_shows_this_class_as_its_example():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "GRADING.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\w+) \| (.*?) \| (\d+)/(\d+) \| .*\|$", doc, re.M)
    assert {label: (int(a), int(b)) for label, _, a, b in rows} == SCORES
    kinds = {label: re.findall(r"`([a-z,-]+)`", said) for label, said, _, _ in rows}
    assert {label: found[0] for label, found in kinds.items() if CLASS[label]} == \
        {label: kind for label, kind in CLASS.items() if kind}
