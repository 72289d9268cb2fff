"""notebooks/class.ipynb: committed clean and as its builder writes it, bilingual, and run headless by papermill
on a small class (a finished lab, one mistake, an empty root): the picture is in the executed notebook, the
grades are `runbook grade`'s, and no student root changes."""

from __future__ import annotations

import ast
import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from helpers import REPO, tree_state
from kernel_ports import run_papermill

CLASS_NB = REPO / "notebooks" / "class.ipynb"
HANGUL = re.compile(r"[\uac00-\ud7a3]")


def cells():
    return json.loads(CLASS_NB.read_text())["cells"]


def test_committed_notebook_is_what_the_builder_writes_without_outputs():
    sys.path.insert(0, str(REPO / "tools"))
    import build_class_notebook

    assert CLASS_NB.read_text() == build_class_notebook.render(), "run `make notebook` after editing the builder"
    for c in cells():
        if c["cell_type"] == "code":
            assert c["outputs"] == [] and c["execution_count"] is None


def test_parameters_are_typed_and_explained_in_both_languages():
    (params,) = [c for c in cells() if "parameters" in c.get("metadata", {}).get("tags", [])]
    names = []
    for line in "".join(params["source"]).splitlines():
        code, _, comment = line.partition("  # ")
        assert re.match(r"(str|bool|int|float): ", comment) and "=" not in comment, line
        assert HANGUL.search(comment) and " / " in comment, line
        names.append(ast.parse(code).body[0].targets[0].id)
    assert names == ["roots", "out", "runtime_name", "binary_name", "systemd_cgroup", "jobs"]


def test_every_markdown_cell_speaks_korean_then_english():
    for c in cells():
        if c["cell_type"] == "markdown":
            text = "".join(c["source"])
            first = HANGUL.search(text)
            assert first, text[:80]
            assert len(re.findall(r"\b[A-Za-z]{3,}\b", text[first.start():])) > 15, text[:80]


def test_the_class_notebook_grades_a_small_class_headless(tmp_path):
    from runbook_lib.lab.init_root import add_mistakes, finished_lab

    finished_lab(str(tmp_path / "class" / "kim"))
    add_mistakes(str(tmp_path / "class" / "lee"), "string-boolean")
    (tmp_path / "class" / "park").mkdir()
    roots = sorted((tmp_path / "class").iterdir())
    before = {r: tree_state(r) for r in roots}
    out_nb = tmp_path / "class-out.ipynb"
    proc = run_papermill([str(Path(sys.executable).parent / "papermill"), "--no-progress-bar", "--log-level", "ERROR",
                          str(CLASS_NB), str(out_nb),
                          "-p", "roots", str(tmp_path / "class" / "*"), "-p", "out", str(tmp_path / "grades"),
                          "-p", "jobs", "2"], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert {r: tree_state(r) for r in roots} == before
    outputs = [o for c in json.loads(out_nb.read_text())["cells"] for o in c.get("outputs", [])]
    assert [o for o in outputs if o["output_type"] == "error"] == []
    assert [o for o in outputs if o.get("name") == "stderr"] == []
    svgs = ["".join(o["data"]["image/svg+xml"]) for o in outputs if "image/svg+xml" in o.get("data", {})]
    assert len(svgs) == 1
    squares = [e for e in ET.fromstring(svgs[0]).iter("{http://www.w3.org/2000/svg}rect") if e.find(
        "{http://www.w3.org/2000/svg}title") is not None]
    grades = json.loads((tmp_path / "grades" / "grades.json").read_text())
    # students × steps: the three a lab folder does not do (9, the restart, the pod) are in the picture, skipped,
    # but out of the total, so no test of results.json
    assert len(squares) == 3 * (len(grades["students"][0]["tests"]) + 3)
    colours = {e.find("{http://www.w3.org/2000/svg}title").text.split(": ")[-1] for e in squares}
    assert colours == {"passed", "failed", "blocked", "skipped"}  # lee's parsed.txt and report.txt wait for step 3
    page = "".join("".join(o["data"].get("text/html", "")) for o in outputs if "data" in o)
    assert 'grades/kim/feedback.html"' in page and 'grades/lee/feedback.html"' in page
    assert "Step 3: BinaryName is an absolute path" in page  # lee's mistake points to its lesson
    assert [(s["extra_data"]["label"], s["extra_data"]["ok"]) for s in grades["students"]] == \
        [("kim", True), ("lee", False), ("park", False)]
    assert (tmp_path / "grades" / "junit.xml").is_file() and (tmp_path / "grades" / "lee" / "feedback.html").is_file()


def test_no_roots_is_a_sentence_not_a_grading_of_the_working_folder(tmp_path):
    import pytest

    from runbook_lib.grading import class_notebook as cn
    from runbook_lib.grading.grade import expand_roots

    assert expand_roots("") == [] and expand_roots(str(tmp_path / "none-*")) == []
    (tmp_path / "s1").mkdir()
    assert expand_roots(str(tmp_path / "s*")) == [str(tmp_path / "s1")]
    assert expand_roots(str(tmp_path / "s1")) == [str(tmp_path / "s1")]  # one folder's path
    (tmp_path / "README.txt").write_text("not a student\n")  # was graded as a student named README.txt
    assert expand_roots(str(tmp_path / "README.txt")) == [] and expand_roots(str(tmp_path / "s2")) == []
    for roots in ("", []):
        with pytest.raises(cn.NoRoots) as err:
            cn.grade(roots, str(tmp_path / "out"), runtime_name="nvidia", binary_name="/usr/bin/x",
                     systemd_cgroup=True)
        assert err.value._render_traceback_() == [str(err.value)] and "no student folder matches" in str(err.value)
    assert not (tmp_path / "out").exists()
