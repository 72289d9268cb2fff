"""Issue 51 with real pods: `runbook grade -p smoke sandbox` starts a throw-away containerd and a pod through every
student's handler (containerd 1.6, runc, the static busybox, as root). The pod is judged for each student, and the
total stays the assignment's: 8 with smoke off and on, 9 only when the course file gives the pod its point.
The same class without busybox-static (no pod at all) is tests/grading/test_grading_charges_only_the_student.py."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import realenv
from pod_traces import leaves_nothing

pytestmark = pytest.mark.real
pytest.importorskip("grpc")


def runbook(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runbook_lib.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=900)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    realenv.need_root()
    for name in ("unshare", "containerd", "ctr", "runc"):
        realenv.need_program(name)
    from runbook_lib.containerd import oci_layout
    if oci_layout.busybox_static() is None:
        realenv.missing("정적 busybox 가 없습니다 (busybox-static) / busybox-static is not installed")
    base = tmp_path_factory.mktemp("class")
    assert runbook("lab-init", "--finished", base / "kim").returncode == 0
    assert runbook("lab-init", "--mistake", "string-boolean", base / "lee").returncode == 0
    course = base.parent / "course.yaml"
    course.write_text("points:\n  pod: 1\n", encoding="utf-8")
    runs = {}
    with leaves_nothing():
        for name, args in {"off": [], "sandbox": ["-p", "smoke", "sandbox", "--notebooks"],
                           "points": ["-p", "smoke", "sandbox", "--points", course]}.items():
            out = tmp_path_factory.mktemp(name)
            proc = runbook("grade", "--out", out, *args, base / "kim", base / "lee")
            runs[name] = (proc, json.loads((out / "grades.json").read_text(encoding="utf-8")), out)
    return runs


def _totals(grades: dict) -> dict:
    return {s["extra_data"]["label"]: (s["score"], s["max_score"]) for s in grades["students"]}


def _pod(out, label: str) -> dict:
    """The pod's record as the student's notebook showed it (the sandbox run has --notebooks)."""
    from runbook_lib.evidence.archive import records
    steps, summary = records(json.loads((out / label / "run.ipynb").read_text(encoding="utf-8")))
    return next(r for r in (summary or {}).get("steps") or steps if r["id"] == "pod")


def test_smoke_on_judges_the_pod_and_leaves_every_total_the_assignments(graded):
    _, off, _ = graded["off"]
    proc, on, out = graded["sandbox"]
    assert proc.returncode == 1 and on["errors"] == [], proc.stdout + proc.stderr  # lee's step 3; no machine error
    assert _totals(off) == _totals(on) == {"kim": (8.0, 8.0), "lee": (7.0, 8.0)}
    assert _pod(out, "kim")["status"] == "passed"  # in the notebook, as in the grade (the feedback's passed steps)
    passed = (out / "kim" / "feedback.html").read_text(encoding="utf-8").split('<ul class="passed">')[1].split("</ul>")[0]
    assert "<li>pod. " in passed
    assert "pod" not in {t["extra_data"]["id"] for s in on["students"] for t in s["tests"]}


def test_the_course_file_gives_the_pod_its_point(graded):
    proc, grades, out = graded["points"]
    assert grades["errors"] == [], proc.stdout + proc.stderr
    kim = next(s for s in grades["students"] if s["extra_data"]["label"] == "kim")
    assert (kim["score"], kim["max_score"]) == (9.0, 9.0)
    pod = next(t for t in kim["tests"] if t["extra_data"]["id"] == "pod")
    assert (pod["score"], pod["max_score"], pod["status"]) == (1.0, 1.0, "passed")
