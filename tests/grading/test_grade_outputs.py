"""The grading outputs built from step records alone: a step id added later, a finding code, a student whose
notebook stopped early, and Korean labels all go through the JUnit file, the results, the feedback page and the
class picture (fast: no notebook runs here, and the one root graded here is judged in check mode, in process;
tests/fleet/test_grade.py grades real roots through the CLI)."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import xmlschema

from runbook_lib.grading import class_view, feedback, junit
from runbook_lib.grading.gradescope import class_grades, student_results
from runbook_lib.grading.model import ClassGrade, Student

JUNIT_XSD = Path(__file__).resolve().parents[1] / "fixtures" / "junit" / "JUnit.xsd"


def rec(step, sid, status, problems=()):
    return {"step": step, "id": sid, "title": {"ko": f"{sid} 단계", "en": f"the {sid} step"}, "status": status,
            "message": {"ko": "메시지", "en": "message"}, "problems": list(problems)}


FINDING = {"what": {"ko": "값이 틀렸습니다", "en": "the value is wrong"}, "fix": {"ko": "고치세요", "en": "fix it"},
           "why": None, "path": "/etc/x.toml", "line": 3, "col": 7, "excerpt": None, "code": "value.wrong"}


def a_class(tmp_path) -> ClassGrade:
    steps = [rec(1, "prepare", "passed"), rec(2, "runtime", "failed", [FINDING]), rec(9, "containerd", "skipped"),
             rec(10, "verify", "failed", [{**FINDING, "code": None, "what": {"ko": "새 단계", "en": "new step"}}])]
    students = [Student("김민준", "/srv/김민준", False, steps, None, tmp_path / "김민준", "2026-01-01T00:00:00+00:00", 1.5),
                Student("lee", "/srv/lee", True, [rec(1, "prepare", "passed"), rec(2, "runtime", "passed")],
                        None, tmp_path / "lee"),
                Student("dead", "/srv/dead", False, [], {"ename": "DeadKernelError", "evalue": "Kernel died"},
                        tmp_path / "dead")]
    return ClassGrade(tmp_path, students)


def test_an_added_step_id_and_a_finding_code_reach_every_output(tmp_path):
    result = a_class(tmp_path)
    steps, rows = class_view.matrix(result)
    assert [i for i, _, _ in steps] == ["prepare", "runtime", "containerd", "verify"]
    assert rows[1] == ("lee", ["passed", "passed", "missing", "missing"])
    mistakes = {m.key: m for m in class_view.common_mistakes(result)}
    assert mistakes["value.wrong"].students == ["김민준"] and mistakes["verify"].count == 1
    assert "the verify step" in mistakes["verify"].lesson.en  # an unknown step still points to a lesson
    xml = junit.render(result)
    xmlschema.XMLSchema(str(JUNIT_XSD)).validate(xml.decode())
    failure = ET.fromstring(xml).find("testsuite/testcase/failure")
    assert failure.get("type") == "value.wrong" and "[/etc/x.toml:3:7]" in failure.text
    assert ET.fromstring(xml).find("testsuite[@name='dead']/testcase[@name='grading']/error").get("type") == "DeadKernelError"


def test_results_count_points_and_a_stopped_notebook_is_a_failed_test(tmp_path):
    result = a_class(tmp_path)
    kim = student_results(result.students[0])
    # the assignment's fixed total: prepare passed; runtime failed; the six lab steps never recorded score 0 of
    # theirs; the skipped step (9) does not apply and is no test; verify (10), a step the assignment gives no
    # points (issue 51: the total is the assignment's, whatever else was judged), is no test either ...
    assert (kim["score"], kim["max_score"]) == (1.0, 8.0)
    assert [t["number"] for t in kim["tests"]] == ["1", "2", "3", "4", "5", "6", "7", "8"]
    # ... until the course file gives it points
    result.students[0].points = {"verify": 1.0}
    graded = student_results(result.students[0])
    assert (graded["score"], graded["max_score"]) == (1.0, 9.0)
    assert [t["number"] for t in graded["tests"]] == ["1", "2", "3", "4", "5", "6", "7", "8", "10"]
    assert kim["tests"][1]["extra_data"]["findings"][0]["code"] == "value.wrong"
    assert kim["tests"][2]["extra_data"]["runbook_status"] == "not_reached" and kim["tests"][2]["score"] == 0.0
    dead = student_results(result.students[2])
    assert (dead["score"], dead["max_score"]) == (0.0, 8.0)  # out of the lab's total like everyone
    assert [t["extra_data"]["runbook_status"] for t in dead["tests"]] == ["not_reached"] * 8 + ["error"]
    assert dead["tests"][-1]["name"] == "grading: 실행이 끝나지 않았습니다 / the grading did not finish"
    assert "DeadKernelError: Kernel died" in dead["tests"][-1]["output"]
    assert json.loads(json.dumps(class_grades(result)))["ok"] is False


def test_the_feedback_page_escapes_and_holds_no_traceback(tmp_path):
    s = a_class(tmp_path).students[0]
    s.steps[1]["problems"][0] = {**FINDING, "excerpt": "<script>alert(1)</script>"}
    page = feedback.render(s)
    assert "<script>alert" not in page and "&lt;script&gt;" in page
    assert "/etc/x.toml:3:7" in page and "고치세요" in page and "fix it" in page
    dead = feedback.render(a_class(tmp_path).students[2])
    assert "The grading did not finish" in dead and "Traceback" not in dead


def test_a_student_folder_named_with_hash_question_mark_or_space_still_links_to_its_own_page(tmp_path):
    """`kim#2` was written into href as is: the browser opened `kim` with the fragment `2/feedback.html`."""
    from html.parser import HTMLParser
    from urllib.parse import unquote

    names = ["kim#2", "lee?x", "Park Ji", "100%", "김민준"]
    result = ClassGrade(tmp_path, [Student(n, f"/srv/{n}", True, [rec(1, "prepare", "passed")], None, tmp_path / n)
                                   for n in names])
    hrefs = []

    class Links(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag == "a":
                hrefs.append(dict(attrs)["href"])

    result.students[0].notebook = True  # graded with --notebooks: its executed notebook is linked too
    Links().feed(class_view.page(result))
    pages = [f"{n}/{page}" for n in names for page in ("feedback.html", "feedback.html")]
    pages[2:2] = ["kim#2/run.ipynb"]
    assert [unquote(h) for h in hrefs] == pages + ["grades.json", "grades.csv", "junit.xml"]
    assert not any(c in h for h in hrefs for c in "#? ")  # the whole href is the path: no fragment, no query


def test_a_control_character_in_a_student_s_file_leaves_junit_xml_well_formed(tmp_path):
    """A terminal colour code pasted into report.txt reached a failure's text as is: XML 1.0 cannot hold it, so
    no consumer could read the class's junit.xml at all."""
    what = {"ko": "다른 값: RUNTIME=nv\x07idia\x1b[31m", "en": "differs: RUNTIME=nv\x07idia\x1b[31m"}
    steps = [rec(8, "report", "failed", [{**FINDING, "what": what, "excerpt": "RUNTIME=nv\x07idia\x1b[31m\x00"}])]
    xml = junit.render(ClassGrade(tmp_path, [Student("kim", "/srv/kim", False, steps, None, tmp_path / "kim")]))
    xmlschema.XMLSchema(str(JUNIT_XSD)).validate(xml.decode())
    failure = next(case.find("failure") for case in ET.fromstring(xml).iter("testcase")
                   if case.get("name").startswith("8 report"))
    assert "RUNTIME=nv\\x07idia\\x1b[31m" in failure.get("message") and "\\x1b[31m" in failure.text


def test_grades_csv_is_a_row_a_student_and_a_column_a_step_as_pythons_csv_module_reads_it(tmp_path):
    from runbook_lib.grading import grade

    result = a_class(tmp_path)
    eight = [rec(n, sid, "passed") for n, sid in enumerate(
        ["prepare", "runtime", "options", "default", "parse", "cdi", "runtimeclass", "report"], 1)]
    result.students.append(Student('park, "jr"', "/srv/park", True, eight, None, tmp_path / "park"))
    grade.write_outputs(result)
    with open(tmp_path / "grades.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    steps = ["1 prepare", "2 runtime", "3 options", "4 default", "5 parse", "6 cdi", "7 runtimeclass", "8 report"]
    assert rows[0] == ["student", *steps, "total", "max_score"]  # the skipped step 9 and verify (no points): none
    assert rows[1:] == [["김민준", "1", "0", "0", "0", "0", "0", "0", "0", "1", "8"],
                        ["lee", "1", "1", "0", "0", "0", "0", "0", "0", "2", "8"],
                        ["dead", "0", "0", "0", "0", "0", "0", "0", "0", "0", "8"],
                        ['park, "jr"', "1", "1", "1", "1", "1", "1", "1", "1", "8", "8"]]
    # a step the course file gives points to is a column; a student without that step's record has it empty
    result.students[0].points = {"verify": 2.0}
    grade.write_outputs(result)
    with open(tmp_path / "grades.csv", encoding="utf-8", newline="") as f:
        table = list(csv.DictReader(f))
    assert [(r["student"], r["10 verify"], r["total"], r["max_score"]) for r in table] == [
        ("김민준", "0", "1", "10"), ("lee", "", "2", "8"), ("dead", "", "0", "8"), ('park, "jr"', "", "8", "8")]


def test_a_worker_that_timed_out_or_died_leaves_the_student_its_named_error(tmp_path):
    """grade._take: a student whose worker passed its time limit, or died, has no verdicts but an error that
    results.json, junit.xml and the feedback page show by its name and its bilingual words (all lines of them)."""
    from runbook_lib.findings.problem import Problem
    from runbook_lib.findings.text import lines
    from runbook_lib.grading import grade

    slow = Student("slow", "/srv/slow", False, [], folder=tmp_path / "slow")
    grade._take(slow, "timeout", None, 301.0, 300.0)
    assert slow.error == {"kind": "timeout", "ename": "TimeoutError", "evalue": "\n".join(
        lines(Problem.of("grade.cell_timeout", seconds="300", root="/srv/slow")))}
    assert len(slow.error["evalue"].split("\n")) > 1 and (slow.duration, slow.ok) == (301.0, False)
    dead = Student("dead", "/srv/dead", False, [], folder=tmp_path / "dead")
    grade._take(dead, "kernel", {"status": -9}, 2.0, 300.0)
    assert dead.error == {"kind": "kernel", "ename": "WorkerDied", "evalue": "\n".join(
        lines(Problem.of("grade.kernel_died", status=-9, root="/srv/dead")))}


def test_grades_json_is_byte_for_byte_what_json_dumps_writes(tmp_path):
    """grades.json is built from each student's already encoded results.json (grade._grades_text), and is
    exactly the text json.dumps(..., ensure_ascii=False, indent=2) makes of the same data; each student's
    results.json is its own entry, and the run's own errors reach every student's."""
    from runbook_lib.grading import grade

    result = a_class(tmp_path)
    result.errors = [{"code": "grade.machine", "what": {"ko": "기계 오류", "en": "the machine failed"},
                      "fix": None, "students": ["lee"]},
                     {"code": "grade.other", "what": {"ko": "다른 오류", "en": "another error"}, "fix": None,
                      "students": []}]  # an error that touched no student: its own "students": [] comes first
    grade.write_outputs(result)
    text = (tmp_path / grade.GRADES_NAME).read_text(encoding="utf-8")
    data = json.loads(text)
    assert text == json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    assert len(data["students"]) == len(result.students) and data["errors"] == result.errors
    for s, entry in zip(result.students, data["students"]):
        own = json.loads((s.folder / grade.RESULTS_NAME).read_text(encoding="utf-8"))
        assert own == entry and own == student_results(s, result.errors)
        assert own["extra_data"]["run_errors"] == result.errors


def test_grading_runs_no_notebook_unless_asked(tmp_path):
    """grade_class's default: the verdicts only; an executed notebook is evidence only with notebooks=True."""
    from runbook_lib.grading import grade
    from runbook_lib.lab.init_root import finished_lab

    root = tmp_path / "kim"
    finished_lab(str(root))
    result = grade.grade_class([str(root)], tmp_path / "out")
    assert [(s.label, s.ok, s.notebook) for s in result.students] == [("kim", True, False)]
    assert not (tmp_path / "out" / "kim" / grade.NOTEBOOK_NAME).exists()


def test_the_outputs_go_into_a_folder_not_made_yet(tmp_path):
    """write_outputs makes the grading folder and each student's folder in it, however deep it is asked to go."""
    from runbook_lib.grading import grade

    out = tmp_path / "course" / "week-3"
    result = ClassGrade(out, [Student("kim", "/srv/kim", True, [rec(1, "prepare", "passed")], folder=out / "kim")])
    grade.write_outputs(result)
    assert sorted(p.name for p in (out / "kim").iterdir()) == sorted([grade.FEEDBACK_NAME, grade.RESULTS_NAME])
    assert json.loads((out / grade.GRADES_NAME).read_text(encoding="utf-8"))["students"][0]["score"] == 1.0
