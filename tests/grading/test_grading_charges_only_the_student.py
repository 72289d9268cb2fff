"""Issue 51: grading charges only the student. A class made with `runbook lab-init`, graded by the real
`runbook grade` (a subprocess, as a course runs it):

- one mistake costs one step: a RuntimeClass handler that names no runtime (step 7), with a report.txt parsed from
  the student's own files as the lab asks, loses step 7 only; step 8 reports those files faithfully and keeps
  its point. The same for every mistake of runbook_lib/lab/mistakes.py, with the toolkit files derived from the
  student's own files by a student's own script (tomllib and PyYAML, nothing of the runbook's);
- the total is the assignment's: `-p smoke sandbox` changes no one's total unless the course file gives the pod
  points;
- the grading machine's failure is the run's: on a machine without busybox-static (a PATH holding every program of
  this machine but busybox) every correct student keeps full points, the pod is graded for no one, and the run
  has one error with its fix (`apt-get install busybox-static`), in the terminal once, in grades.json, in every
  results.json and on the class page. No pod is started here (tests/real/test_real_grade_pod.py starts them).
"""

from __future__ import annotations

import html
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from runbook_lib.lab.mistakes import MISTAKES

CRI = "io.containerd.grpc.v1.cri"
LAB = ["prepare", "runtime", "options", "default", "parse", "cdi", "runtimeclass", "report"]


def runbook(*args, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runbook_lib.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=900, env=env)


def lab_init(root: Path, mistake: str | None = None) -> Path:
    made = runbook("lab-init", *(["--mistake", mistake] if mistake else ["--finished"]), root)
    assert made.returncode == 0, made.stderr
    return root


def derive_as_a_student(root: Path, keep: tuple[str, ...] = ()) -> list[str]:
    """The toolkit files a student writes by parsing their own files, as the lab asks: parsed.txt, default.txt,
    report.txt from config.toml (tomllib) and runtimeclass.yaml (PyYAML), however wrong those are. A config that
    tomllib cannot parse gives nothing to derive from: the files stay. ``keep``: the files left as they are (a
    mistake in the file itself)."""
    toolkit = root / "root" / "toolkit"
    try:
        cfg = tomllib.loads((root / "etc/containerd/config.toml").read_text())
    except tomllib.TOMLDecodeError:
        return []
    containerd = cfg.get("plugins", {}).get(CRI, {}).get("containerd", {})
    runtimes = containerd.get("runtimes", {})
    rc = yaml.safe_load((toolkit / "runtimeclass.yaml").read_text()) or {}
    handler = rc.get("handler")
    name = handler if handler in runtimes else "nvidia"  # the runtime the handler names, else the lab's
    table = runtimes.get(name, {})
    cgroup = table.get("options", {}).get("SystemdCgroup")
    files = {
        "parsed.txt": f"VERSION={cfg.get('version')}\nRUNTIMES={','.join(runtimes)}\n",
        "report.txt": f"CONFIG_VERSION={cfg.get('version')}\nRUNTIME={name if name in runtimes else ''}\n"
                      f"RUNTIME_TYPE={table.get('runtime_type', '')}\n"
                      f"SYSTEMD_CGROUP={'' if cgroup is None else str(cgroup).lower()}\nHANDLER={handler or ''}\n",
    }
    if "default_runtime_name" in containerd:
        files["default.txt"] = f"DEFAULT={containerd['default_runtime_name']}\nWHY=runtimeclass\n"
    written = []
    for name, text in files.items():
        if name not in keep and (toolkit / name).exists():
            (toolkit / name).write_text(text)
            written.append(name)
    return written


def grades(out: Path) -> dict:
    return json.loads((out / "grades.json").read_text(encoding="utf-8"))


def by_label(out: Path) -> dict[str, dict]:
    return {s["extra_data"]["label"]: s for s in grades(out)["students"]}


def lost(student: dict) -> list[str]:
    return [t["extra_data"]["id"] for t in student["tests"] if t["score"] < t["max_score"]]


# --- one mistake costs one step --------------------------------------------------------------------------------

def test_a_handler_naming_no_runtime_with_a_report_of_the_students_own_files_costs_step_7_only(tmp_path):
    root = lab_init(tmp_path / "class" / "han")
    rc = root / "root/toolkit/runtimeclass.yaml"
    rc.write_text(rc.read_text().replace("handler: nvidia", "handler: nvidia-gpu"))
    assert derive_as_a_student(root) == ["parsed.txt", "report.txt", "default.txt"]
    report = (root / "root/toolkit/report.txt").read_text()
    assert "HANDLER=nvidia-gpu" in report  # what the student's own RuntimeClass says
    out = tmp_path / "grades"
    proc = runbook("grade", "--out", out, root)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # step 7 failed
    han = by_label(out)["han"]
    assert (han["score"], han["max_score"]) == (7.0, 8.0)
    assert lost(han) == ["runtimeclass"]
    step8 = next(t for t in han["tests"] if t["extra_data"]["id"] == "report")
    assert (step8["status"], step8["extra_data"]["runbook_status"]) == ("passed", "passed")
    # said, not charged: the report holds step 7's mistake faithfully, and is written again once 7 is fixed
    (note,) = step8["extra_data"]["findings"]
    assert note["code"] == "file.faithful_to_earlier_step" and "step 7" in note["what"]["en"] and "7단계" in note["what"]["ko"]


def test_a_report_that_says_neither_the_students_files_nor_the_fixed_ones_is_step_8s_own_mistake(tmp_path):
    root = lab_init(tmp_path / "class" / "han")
    rc = root / "root/toolkit/runtimeclass.yaml"
    rc.write_text(rc.read_text().replace("handler: nvidia", "handler: nvidia-gpu"))
    report = root / "root/toolkit/report.txt"
    report.write_text(report.read_text().replace("RUNTIME_TYPE=io.containerd.runc.v2", "RUNTIME_TYPE=runc"))
    out = tmp_path / "grades"
    runbook("grade", "--out", out, root)
    assert lost(by_label(out)["han"]) == ["runtimeclass", "report"]


# the mistakes whose config tomllib cannot read, or containerd reads as another version: the later steps cannot be
# judged on the student's config (issue 51 leaves them blocked, said in the report); every other mistake, one step
UNREADABLE = {"toml-syntax-error", "duplicate-key", "python-true", "typographic-quotes", "no-version-line"}


@pytest.fixture(scope="module")
def every_mistake_derived(tmp_path_factory):
    base = tmp_path_factory.mktemp("class")
    for m in MISTAKES:
        root = lab_init(base / m.kind, m.kind)
        own = {e.path.rsplit("/", 1)[-1] for e in m.edits}  # a mistake in a toolkit file itself stays
        derive_as_a_student(root, keep=tuple(own))
    out = tmp_path_factory.mktemp("grades")
    proc = runbook("grade", "--out", out, "--jobs", "2", *sorted(base.iterdir()))
    assert proc.returncode == 1, proc.stderr[-3000:]
    return by_label(out)


@pytest.mark.parametrize("kind", [m.kind for m in MISTAKES if m.kind not in UNREADABLE])
def test_every_mistake_with_files_derived_from_the_students_own_costs_its_own_step(every_mistake_derived, kind):
    m = next(m for m in MISTAKES if m.kind == kind)
    s = every_mistake_derived[kind]
    assert lost(s) == [m.step], {t["extra_data"]["id"]: t["extra_data"]["runbook_status"] for t in s["tests"]}
    assert (s["score"], s["max_score"]) == (7.0, 8.0)
    assert not [t for t in s["tests"] if t["extra_data"]["runbook_status"] == "blocked"]


# --- the total is the assignment's ----------------------------------------------------------------------------

def _without(name: str, folder: Path) -> dict:
    """This machine's environment with a PATH that finds every program of this machine's PATH but ``name``."""
    folder.mkdir()
    for d in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if not os.path.isdir(d):
            continue
        for entry in os.listdir(d):
            link = folder / entry
            if entry != name and not link.exists() and not link.is_symlink() and os.access(os.path.join(d, entry), os.X_OK):
                link.symlink_to(os.path.join(d, entry))
    return {**os.environ, "PATH": str(folder)}


@pytest.fixture(scope="module")
def no_busybox(tmp_path_factory):
    base = tmp_path_factory.mktemp("class")
    lab_init(base / "kim")
    lab_init(base / "lee", "string-boolean")
    env = _without("busybox", tmp_path_factory.mktemp("machine") / "bin")
    course = base.parent / "course.yaml"
    course.write_text("points:\n  pod: 1\n", encoding="utf-8")
    roots = [base / "kim", base / "lee"]
    runs = {}
    for name, args in {"off": [], "sandbox": ["-p", "smoke", "sandbox"],
                       "sandbox-points": ["-p", "smoke", "sandbox", "--points", course]}.items():
        out = tmp_path_factory.mktemp(name)
        runs[name] = (runbook("grade", "--out", out, *args, *roots, env=env), out)
    return runs


def test_without_busybox_static_every_correct_student_keeps_full_points(no_busybox):
    for name in ("sandbox", "sandbox-points"):
        proc, out = no_busybox[name]
        students = by_label(out)
        kim, lee = students["kim"], students["lee"]
        assert kim["score"] == kim["max_score"] == 8.0, (name, kim["output"])
        assert kim["extra_data"]["ok"] is True and all(t["status"] == "passed" for t in kim["tests"])
        assert (lee["score"], lee["max_score"], lost(lee)) == (7.0, 8.0, ["options"])
        assert "pod" not in {t["extra_data"]["id"] for s in students.values() for t in s["tests"]}
        # the pod is skipped for everyone, said as the machine's, in the student's own record
        nb_pod = [r for r in json.loads((out / "kim" / "results.json").read_text())["tests"] if r["tags"] == ["pod"]]
        assert nb_pod == []


def _valid(g: dict) -> None:
    """grades.json against its documented shape (tests/fixtures/schemas/, docs/GRADING.md)."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    schemas = Path(__file__).resolve().parents[1] / "fixtures" / "schemas"
    results = json.loads((schemas / "gradescope-results.schema.json").read_text())
    grades_schema = json.loads((schemas / "grades.schema.json").read_text())
    registry = Registry().with_resource(results["$id"], Resource.from_contents(results))
    Draft202012Validator(grades_schema, registry=registry).validate(g)


def test_without_busybox_static_the_run_has_one_error_with_its_fix(no_busybox):
    proc, out = no_busybox["sandbox"]
    assert proc.returncode == 3, proc.stdout + proc.stderr
    g = grades(out)
    (error,) = g["errors"]
    assert error["code"] == "grade.machine.pod_cannot_run" and error["students"] == ["kim", "lee"]
    assert "busybox-static" in error["what"]["en"] and "busybox-static" in error["what"]["ko"]
    assert "apt-get install" in error["fix"]["en"] and "busybox-static" in error["fix"]["en"].split("apt-get install")[1]
    assert "apt-get install" in error["fix"]["ko"]
    assert g["ok"] is False
    _valid(g)
    # the terminal says it once, both languages, with the fix
    assert proc.stdout.count(error["what"]["en"]) == 1 and proc.stdout.count(error["what"]["ko"]) == 1
    assert proc.stdout.count(error["fix"]["en"]) == 1
    assert "pod.cannot_run" not in proc.stdout and "kim" in proc.stdout
    for label in ("kim", "lee"):
        own = json.loads((out / label / "results.json").read_text(encoding="utf-8"))
        assert own["extra_data"]["run_errors"] == g["errors"]
        assert error["what"]["en"] in own["output"]
        page = html.unescape((out / label / "feedback.html").read_text(encoding="utf-8"))
        assert "not graded: the grading machine's error" in page and "채점하지 않음" in page
    index = html.unescape((out / "index.html").read_text(encoding="utf-8"))
    assert index.count("apt-get install busybox-static") == 2  # the fix, Korean and English, once each


def test_the_total_is_the_assignments_with_and_without_smoke(no_busybox):
    totals = {name: {label: (s["score"], s["max_score"]) for label, s in by_label(out).items()}
              for name, (_, out) in no_busybox.items()}
    assert totals["off"] == totals["sandbox"] == totals["sandbox-points"] == {"kim": (8.0, 8.0), "lee": (7.0, 8.0)}
    assert no_busybox["off"][0].returncode == 1 and grades(no_busybox["off"][1])["errors"] == []


def test_a_pod_judged_is_worth_the_points_the_course_file_gives_it_and_no_more():
    """The score rule on a pod record as a graded notebook holds it: no points unless the course file says."""
    from runbook_lib.grading.score import scored, total

    steps = [{"step": n, "id": i, "status": "passed", "problems": []} for n, i in enumerate(LAB, 1)]
    for status in ("passed", "failed", "blocked"):
        pod = {"step": "pod", "id": "pod", "status": status, "problems": []}
        assert total(steps + [pod]) == (8.0, 8.0)
        assert "pod" not in [c.rec["id"] for c in scored(steps + [pod])]
        assert total(steps + [pod], {"pod": 1.0}) == (9.0 if status == "passed" else 8.0, 9.0)


def test_the_graders_own_cell_limit_is_one_error_of_the_run_naming_the_students_it_stopped(tmp_path):
    """The grader's time limit (grade_class's `timeout`) met by every student's notebook (--notebooks): a notebook
    of the runbook's kernel (`--notebook`, for development) whose second cell waits for longer than the limit.
    The run says so once, naming the students, with its fix; the grade is the verdicts, no step of theirs is
    called failed."""
    import nbformat

    from runbook_lib.evidence.archive import packaged_notebook
    from runbook_lib.grading.grade import grade_class

    base = nbformat.read(packaged_notebook(), as_version=4)
    nb = nbformat.v4.new_notebook(metadata=base.metadata)
    nb.cells = [nbformat.v4.new_code_cell("root = ''\nmode = 'check'", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell("import time\ntime.sleep(3600)")]
    notebook = tmp_path / "waits.ipynb"
    nbformat.write(nb, notebook)
    roots = [lab_init(tmp_path / "class" / name) for name in ("kim", "lee")]
    result = grade_class([str(r) for r in roots], tmp_path / "grades", {}, notebooks=True, notebook=notebook,
                         timeout=3, jobs=2)
    (error,) = result.errors
    assert error["code"] == "grade.machine.cell_timeout" and error["students"] == ["kim", "lee"]
    assert "--jobs" in error["fix"]["en"] and "--jobs" in error["fix"]["ko"]
    assert grades(tmp_path / "grades")["errors"] == result.errors
    assert all(s.failed_steps() == [] and s.ok for s in result.students)
    assert all((tmp_path / "grades" / s.label / "run.ipynb").is_file() for s in result.students)  # as far as it ran


def test_a_pod_past_its_time_on_the_grading_machine_is_graded_for_no_one():
    """A sandbox pod that ran past `smoke_timeout` (the grading machine's time) for one student: the pod is
    graded for no one, the run names the student once with its fix; a pod containerd refused for the student's
    own config stays that student's finding when the machine is fine."""
    from runbook_lib.findings.problem import Problem
    from runbook_lib.grading import machine
    from runbook_lib.grading.model import Student

    def pod(status, *problems):
        return {"step": "pod", "id": "pod", "status": status, "problems": [p.as_dict() for p in problems]}

    lab = [{"step": n, "id": i, "status": "passed", "problems": []} for n, i in enumerate(LAB, 1)]
    slow = Student("kim", "/srv/kim", False, lab + [pod("failed", Problem.of("pod.timeout", seconds="120",
                                                                              stage="RunPodSandbox nvidia"))])
    fine = Student("lee", "/srv/lee", True, lab + [pod("passed")])
    (error,) = machine.pod_errors([slow, fine], "sandbox")
    assert error["code"] == "grade.machine.pod_timeout" and error["students"] == ["kim"]
    assert "smoke_timeout" in error["fix"]["en"] and "smoke_timeout" in error["fix"]["ko"]
    assert [r["status"] for s in (slow, fine) for r in s.steps if r["id"] == "pod"] == ["skipped", "skipped"]
    assert slow.ok is True and fine.ok is True
    refused = Student("han", "/srv/han", False, lab + [pod("failed", Problem.of(
        "pod.rejected.other", handler="nvidia", said="no"))])
    assert machine.pod_errors([refused], "sandbox") == [] and refused.failed_steps()[0]["id"] == "pod"


def test_what_a_pod_check_left_on_the_grading_machine_is_the_runs_error():
    from runbook_lib.findings.problem import Problem
    from runbook_lib.grading import machine
    from runbook_lib.grading.model import Student

    lab = [{"step": n, "id": i, "status": "passed", "problems": []} for n, i in enumerate(LAB, 1)]
    pod = {"step": "pod", "id": "pod", "status": "failed",
           "problems": [Problem.of("pod.left_behind", left="cgroup /sys/fs/cgroup/runbook-x").as_dict()]}
    kim = Student("kim", "/srv/kim", False, lab + [pod])
    (error,) = machine.pod_errors([kim], "sandbox")
    assert error["code"] == "grade.machine.pod_left_behind" and "runbook-x" in error["what"]["en"]
    assert kim.ok is True and pod["status"] == "skipped"
    assert machine.pod_errors([Student("lee", "/srv/lee", False, lab + [dict(pod, status="failed")])], "off") == []
