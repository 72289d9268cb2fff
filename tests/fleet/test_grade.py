"""`runbook grade`: a whole class (a finished lab, every mistake kind, an empty root, two students with the same
folder name) graded by one command, in parallel. No student root changes; the outputs
are read by real consumers (junitparser for the JUnit XML, jsonschema for grades.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fleet_helpers import runbook
from kernel_ports import descendants
from helpers import ctrl_c_reaches_children, tree_state
from runbook_lib.lab.init_root import add_mistakes, finished_lab
from runbook_lib.lab.mistakes import MISTAKES

SCHEMAS = Path(__file__).resolve().parents[1] / "fixtures" / "schemas"
JUNIT_XSD = Path(__file__).resolve().parents[1] / "fixtures" / "junit" / "JUnit.xsd"  # Ant's schema, Apache-2.0
LAB_STEPS = ["prepare", "runtime", "options", "default", "parse", "cdi", "runtimeclass", "report"]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("class")
    roots = []
    for m in MISTAKES:
        add_mistakes(str(base / m.kind), m.kind)
        roots.append(base / m.kind)
    for group in ("a", "b"):  # two students whose folders are both named kim
        finished_lab(str(base / group / "kim"))
        roots.append(base / group / "kim")
    (base / "empty").mkdir()
    roots.append(base / "empty")
    before = {r: tree_state(r) for r in roots}
    out = base / "grades"
    proc = runbook("grade", "--out", out, "--jobs", "2", *roots, timeout=900)
    return {"base": base, "roots": roots, "before": before, "out": out, "proc": proc,
            "grades": json.loads((out / "grades.json").read_text(encoding="utf-8"))}


def student(graded, label: str) -> dict:
    return next(s for s in graded["grades"]["students"] if s["extra_data"]["label"] == label)


def step_tests(s: dict) -> dict[str, dict]:
    return {t["extra_data"]["id"]: t for t in s["tests"]}


def test_one_failing_student_fails_the_command_and_no_root_changes(graded):
    assert graded["proc"].returncode == 1, graded["proc"].stderr[-3000:]
    for root in graded["roots"]:
        assert tree_state(root) == graded["before"][root], root
    assert graded["grades"]["ok"] is False


def test_labels_never_collide_and_follow_the_folder_names(graded):
    labels = [s["extra_data"]["label"] for s in graded["grades"]["students"]]
    assert len(set(labels)) == len(labels) == len(graded["roots"])
    assert labels[:len(MISTAKES)] == [m.kind for m in MISTAKES]
    assert labels[len(MISTAKES):] == ["a-kim", "b-kim", "empty"]
    for label in labels:
        assert (graded["out"] / label / "results.json").is_file() and (graded["out"] / label / "feedback.html").is_file()


def test_a_finished_lab_passes_with_full_marks(graded):
    s = student(graded, "a-kim")
    assert s["extra_data"]["ok"] is True and s["score"] == s["max_score"] == len(LAB_STEPS)
    assert all(t["status"] == "passed" for t in s["tests"])
    assert "containerd" not in step_tests(s)  # skipped in a lab for everyone: out of the total, no test at all


def test_an_empty_root_fails_or_blocks_every_lab_step_out_of_the_same_total(graded):
    """No config: the steps that judge a file fail; step 1's missing config is the one root cause of steps 2-5,
    which wait (blocked), each 0 of its point: the empty root is graded out of the lab's total like everyone."""
    s = student(graded, "empty")
    tests = step_tests(s)
    assert (s["score"], s["max_score"]) == (0.0, float(len(LAB_STEPS)))
    assert [i for i in LAB_STEPS if tests[i]["extra_data"]["runbook_status"] == "failed"] == \
        ["prepare", "cdi", "runtimeclass", "report"]
    blocked = [i for i in LAB_STEPS if tests[i]["extra_data"]["runbook_status"] == "blocked"]
    assert blocked == ["runtime", "options", "default", "parse"] and all(tests[i]["max_score"] == 1 for i in blocked)
    assert all(tests[i]["output"].startswith("1단계를 먼저 고치세요 / fix step 1 first") for i in blocked)


@pytest.mark.parametrize("kind", [m.kind for m in MISTAKES])
def test_every_mistake_kind_fails_its_step(graded, kind):
    m = next(m for m in MISTAKES if m.kind == kind)
    s = student(graded, kind)
    assert s["extra_data"]["ok"] is False
    test = step_tests(s)[m.step]
    assert test["status"] == "failed", {i: t["status"] for i, t in step_tests(s).items()}
    # the notebook shows the same (tests/grading/test_grade_equals_notebook.py): here, the grade's own findings
    assert test["extra_data"]["runbook_status"] == "failed" and test["extra_data"]["findings"]
    codes = [p["code"] for p in test["extra_data"]["findings"]]
    assert m.code in codes, f"the grader must name {kind} by its code {m.code}; it gave {codes}"


def test_grades_json_matches_its_documented_shape(graded):
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    results = json.loads((SCHEMAS / "gradescope-results.schema.json").read_text())
    grades = json.loads((SCHEMAS / "grades.schema.json").read_text())
    registry = Registry().with_resource(results["$id"], Resource.from_contents(results))
    Draft202012Validator(grades, registry=registry).validate(graded["grades"])
    for s in graded["grades"]["students"]:
        own = json.loads((graded["out"] / s["extra_data"]["label"] / "results.json").read_text(encoding="utf-8"))
        assert own == s
        Draft202012Validator(results).validate(own)
        assert own["score"] == sum(t["score"] for t in own["tests"])
    broken = step_tests(student(graded, "string-boolean"))["options"]
    (finding,) = broken["extra_data"]["findings"]
    assert finding["where"] == "/etc/containerd/config.toml:35" and "SystemdCgroup = true" in finding["fix"]["en"]
    assert "고치기: " in broken["output"] and "fix: " in broken["output"]


def test_junit_xml_is_read_by_a_junit_consumer_and_valid_against_ant_s_schema(graded):
    import xmlschema
    from junitparser import Failure, JUnitXml, Skipped

    xml = JUnitXml.fromfile(str(graded["out"] / "junit.xml"))
    suites = {suite.name: suite for suite in xml}
    assert list(suites) == [s["extra_data"]["label"] for s in graded["grades"]["students"]]
    for s in graded["grades"]["students"]:
        suite = suites[s["extra_data"]["label"]]
        cases = list(suite)
        assert suite.tests == len(cases) == len(s["tests"])
        failed = [c for c in cases if any(isinstance(r, Failure) for r in c.result)]
        blocked = sum(t["extra_data"]["runbook_status"] == "blocked" for t in s["tests"])
        # a blocked step is a failed Gradescope test (0 of its point) and a JUnit <skipped> ("fix step N first")
        assert suite.failures == len(failed) == sum(t["status"] == "failed" for t in s["tests"]) - blocked
        assert suite.skipped == sum(any(isinstance(r, Skipped) for r in c.result) for c in cases)
    case = next(c for c in suites["binaryname-relative"] if c.name.startswith("3 options"))
    xmlschema.XMLSchema(str(JUNIT_XSD)).validate(str(graded["out"] / "junit.xml"))
    (failure,) = case.result
    assert "is not an absolute path" in failure.message and "절대 경로" in failure.message
    assert 'fix: BinaryName = "/usr/bin/nvidia-container-runtime"' in failure.text
    assert "/etc/containerd/config.toml:34" in failure.text


def test_a_feedback_page_is_written_for_the_student(graded):
    page = (graded["out"] / "toml-syntax-error" / "feedback.html").read_text(encoding="utf-8")
    assert "Traceback" not in page and "StepFailed" not in page and "An Exception was encountered" not in page
    assert "/etc/containerd/config.toml:34:60" in page and "고치기 / fix" in page
    assert "BinaryName = &quot;/usr/bin/nvidia-container-runtime&quot;" in page  # the fix, escaped
    assert "통과한 단계 / What passed" in page and "Prepare folders and the base config" in page
    good = (graded["out"] / "a-kim" / "feedback.html").read_text(encoding="utf-8")
    assert "Every step passed" in good and "✗" not in good


def test_the_class_page_shows_the_picture_and_the_common_mistakes(graded):
    page = (graded["out"] / "index.html").read_text(encoding="utf-8")
    assert "<svg" in page and 'href="a-kim/feedback.html"' in page
    verdicts = [s["extra_data"]["ok"] for s in graded["grades"]["students"]]
    n, bad = len(verdicts), verdicts.count(False)
    assert (n, bad) == (len(MISTAKES) + 3, len(MISTAKES) + 1)  # every mistake kind and the empty root fail
    assert f"{bad} of {n} students have something to fix." in page and f"학생 {n}명 중 {bad}명이" in page
    assert "The most common mistakes" in page and "Step 2: add the runtime table" in page


def test_usage_errors_exit_2_before_anything_runs(tmp_path):
    (tmp_path / "s1").mkdir()
    out = tmp_path / "out"
    cases = [
        (["grade", "--out", out, tmp_path / "missing"], "no such student root folder"),
        (["grade", "--out", out, tmp_path / "s1", "--label", "x", "--label", "y"], "one --label per root"),
        (["grade", "--out", out, tmp_path / "s1", "-p", "mode", "apply"], "check mode only"),
        (["grade", "--out", out, tmp_path / "s1", "-p", "no_such", "1"], "unknown parameter: no_such"),
        (["grade", "--out", tmp_path / "s1" / "grades", tmp_path / "s1"], "inside a student's root"),
        (["grade", tmp_path / "s1"], "--out"),
        (["grade", "--out", tmp_path / "a-file", tmp_path / "s1"], "--out is a file, not a folder"),  # was FileExistsError
        (["grade", "--out", out, tmp_path / "s1", tmp_path / "a-file"], "a student root must be a folder, not a file"),
        (["grade", "--out", out, tmp_path / "s1", "--label", " "], "--label begins or ends with a space"),
    ]
    (tmp_path / "a-file").write_text("not a folder\n")
    for args, text in cases:
        proc = runbook(*args)
        assert proc.returncode == 2 and text in proc.stderr, (args, proc.stderr)
    assert not out.exists() and list((tmp_path / "s1").iterdir()) == []


def test_out_that_holds_the_students_folders_is_refused_before_a_byte_is_written(tmp_path):
    """`--out /srv/class` for /srv/class/*: DIR/kim/ was kim's own root, and run.ipynb, feedback.html and
    results.json were written into it, over the student's files of those names."""
    for name in ("kim", "lee"):
        finished_lab(str(tmp_path / "class" / name))
    (tmp_path / "class" / "kim" / "feedback.html").write_text("the student's own page\n")
    before = tree_state(tmp_path / "class")
    proc = runbook("grade", "--out", tmp_path / "class", tmp_path / "class" / "kim", tmp_path / "class" / "lee")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "학생 root 가 겹칩니다" in proc.stderr and "overlaps the student root" in proc.stderr, proc.stderr
    assert tree_state(tmp_path / "class") == before


def test_a_link_to_another_student_s_folder_is_named_in_the_refusal(tmp_path):
    """/srv/class/* with `copy -> kim`: the refusal named only the resolved kim, so the instructor could not
    tell which entry of the class folder to take out."""
    (tmp_path / "class" / "kim").mkdir(parents=True)
    (tmp_path / "class" / "copy").symlink_to("kim")
    proc = runbook("grade", "--out", tmp_path / "out", tmp_path / "class" / "copy", tmp_path / "class" / "kim")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{tmp_path / 'class' / 'copy'}, {tmp_path / 'class' / 'kim'} → {tmp_path / 'class' / 'kim'}" in proc.stderr
    assert "같은 root 가 두 번 있습니다" in proc.stderr and "leave out the link" in proc.stderr


def test_every_student_passing_exits_0_with_given_labels_and_overrides(tmp_path):
    finished_lab(str(tmp_path / "s1"))
    before = tree_state(tmp_path / "s1")
    proc = runbook("grade", "--out", tmp_path / "out", "--label", "kim", "-f", "params/check.yaml",
                   "-p", "runtime_name", "nvidia", tmp_path / "s1", cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "out" / "kim" / "feedback.html").is_file()
    assert tree_state(tmp_path / "s1") == before


def _waits_on(pid: int, path) -> bool:
    """A process of the grading (the command or a worker it forked) has ``path`` open: that student's check is
    under way, waiting for the lock the test holds. Only this grading's own processes are looked at."""
    import os

    from helpers import parent_of

    family = {pid} | {int(p) for p in os.listdir("/proc") if p.isdigit() and parent_of(int(p)) == pid}
    for member in family:
        try:
            fds = os.listdir(f"/proc/{member}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{member}/fd/{fd}") == str(path):
                    return True
            except OSError:
                continue
    return False


def _hung(proc) -> str:
    """What kept a Ctrl-C'd grading from ending (seen once in a whole suite at load 7, never alone): whether the
    command itself still runs, its process group's members and where each waits, and every process that still
    holds the command's stdout or stderr (communicate() waits for their end, not for the command's); then the
    group is killed."""
    import os
    import signal
    import subprocess

    pipes = {os.readlink(f"/proc/self/fd/{f.fileno()}") for f in (proc.stdout, proc.stderr)}
    holders = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            if pid != str(os.getpid()) and pipes & {os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    holders.append(pid + " " + f.read().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:
            continue
    try:  # SigPnd, SigBlk, SigIgn, SigCgt: a Ctrl-C pending, blocked or ignored (bit 2, SIGINT) says so
        with open(f"/proc/{proc.pid}/status") as f:
            signals = "".join(line for line in f if line.startswith(("SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")))
    except OSError:
        signals = ""
    exited = os.waitpid(proc.pid, os.WNOHANG)[0] == proc.pid
    group = subprocess.run(["ps", "-o", "pid,ppid,stat,wchan:24,etime,args", "-g", str(proc.pid)],
                           capture_output=True, text=True).stdout
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return (f"the grading did not end 120 s after Ctrl-C; the command {'had exited' if exited else 'still ran'}\n"
            f"{signals}its process group:\n{group}\nholding its stdout or stderr:\n" + "\n".join(holders))


def test_ctrl_c_says_interrupted_in_both_languages_and_a_second_grading_completes(tmp_path):
    """Ctrl-C reaches the whole foreground process group (the workers too): one sentence in both languages, exit
    130, no traceback. The signal comes while the grading is surely under way: the test holds the last student's
    root lock (as a run of that student's own would; check mode waits for a lock file it finds), and sends Ctrl-C
    once a worker of the grading has that lock file open, waiting, so the grading cannot end before the Ctrl-C,
    however slow or fast the machine."""
    import fcntl
    import os
    import signal
    import subprocess
    import sys
    import time

    roots = [tmp_path / "class" / f"s{n}" for n in range(4)]
    for root in roots:
        finished_lab(str(root))
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "runbook_lib.cli", "grade", "--out", str(out), "--jobs", "2", *map(str, roots)]
    held = roots[-1] / "run/lock/nvidia-runtime-runbook.lock"  # a run of that student's own is under way
    held.parent.mkdir(parents=True, exist_ok=True)
    held.touch()
    lock = os.open(held, os.O_RDONLY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with ctrl_c_reaches_children():
            proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    start_new_session=True)
        deadline = time.monotonic() + 600  # a guard against a hang, not a measure: the state is what is awaited
        while not _waits_on(proc.pid, held) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()  # still grading: the last student waits for the lock
        assert _waits_on(proc.pid, held), "the last student's grading never started"
        os.killpg(proc.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
        try:
            _, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            pytest.fail(_hung(proc), pytrace=False)
    finally:
        os.close(lock)  # closing the only descriptor of its open file releases the lock
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "never retrieved" not in err, err
    assert "중단했습니다 (Ctrl-C)" in err and "interrupted (Ctrl-C)" in err
    assert "Grading only reads the students' roots" in err and "채점은 학생의 root 를 읽기만" in err
    assert not (out / "grades.json").exists()  # written together at the end, as the sentence says
    again = runbook("grade", "--out", out, "--jobs", "2", *roots)
    assert again.returncode == 0, again.stdout + again.stderr
    grades = json.loads((out / "grades.json").read_text(encoding="utf-8"))
    assert [s["extra_data"]["label"] for s in grades["students"]] == ["s0", "s1", "s2", "s3"]


def test_a_config_that_is_a_fifo_is_graded_not_waited_for(tmp_path):
    """A student's config.toml replaced by a FIFO: the notebook's parse cell opened it itself and blocked for ever,
    so the whole class's grading never ended. Now read as every file of a root is: step 1 says what stands there."""
    import os

    finished_lab(str(tmp_path / "fifo"))
    config = tmp_path / "fifo" / "etc" / "containerd" / "config.toml"
    config.unlink()
    os.mkfifo(config)
    proc = runbook("grade", "--out", tmp_path / "out", tmp_path / "fifo", timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    results = json.loads((tmp_path / "out" / "fifo" / "results.json").read_text(encoding="utf-8"))
    prepare = step_tests(results)["prepare"]
    assert prepare["status"] == "failed" and "FIFO" in prepare["output"], prepare
    assert not any(t["extra_data"]["id"] == "notebook" for t in results["tests"])  # the notebook ran to its end


def test_ctrl_c_of_a_run_says_what_it_left_and_the_root_it_waited_for_is_unchanged(tmp_path):
    """`runbook run` stopped by Ctrl-C while its kernel waits for the root's lock (another run holds it): exit
    130, the run's own sentence in both languages (not the grading's), and nothing under the root changed."""
    import fcntl
    import os
    import signal
    import subprocess
    import sys
    import time

    root = tmp_path / "lab"
    finished_lab(str(root))
    held = root / "run/lock/nvidia-runtime-runbook.lock"
    held.parent.mkdir(parents=True, exist_ok=True)
    held.touch()
    before = tree_state(root)
    lock = os.open(held, os.O_RDONLY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with ctrl_c_reaches_children():
            proc = subprocess.Popen([sys.executable, "-m", "runbook_lib.cli", "run", "--root", str(root),
                                     "--archive", str(tmp_path / "archive")], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, start_new_session=True)
        deadline = time.monotonic() + 600  # a guard against a hang: the state is what is awaited
        waits = lambda: any(_waits_on(p, held) for p in descendants(proc.pid))  # noqa: E731 - the kernel too
        while not waits() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        os.killpg(proc.pid, signal.SIGINT)  # the terminal's Ctrl-C: the runner's group (the kernel has its own)
        _, err = proc.communicate(timeout=120)
    finally:
        os.close(lock)
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    assert "The runs that finished have their folders in the archive" in err and "보관 폴더에" in err
    assert "Grading" not in err
    assert tree_state(root) == before
    (run_dir,) = (tmp_path / "archive" / "lab").iterdir()
    assert (run_dir / "run.ipynb").is_file()  # the interrupted run's notebook, as far as it got
