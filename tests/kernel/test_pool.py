"""A class graded with kernels forked from one zygote (runbook_lib/kernel/pool.py, runbook_lib/grading/runner.py):
nothing of one student reaches the next, and a kernel that dies or hangs costs only its own student.

The notebooks here are small and made for the purpose: each student's notebook first reports what it finds
(anything an earlier student left behind), then leaves behind everything a notebook can leave in a kernel: a
variable, a module it imported, a module of the runbook changed in place (a cache), a finding of the runbook's
notebook API, an open file, a changed folder and an environment variable. If two students ever shared a kernel,
the second one's report would show the first one's leftovers."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest

from runbook_lib.grading.grade import grade_class
from runbook_lib.kernel.app import NAME as KERNEL

PROBE = "application/x-probe+json"

LOOK = f'''
import json, os, sys
from IPython.display import display
import runbook_lib.findings.problem as findings
import runbook_lib.notebook as nbapi
fds = []
for fd in os.listdir("/proc/self/fd"):
    try:
        fds.append(os.readlink(f"/proc/self/fd/{{fd}}"))
    except OSError:
        pass
display({{"{PROBE}": {{
    "pid": os.getpid(), "ppid": os.getppid(), "root": root, "cwd": os.getcwd(),
    "left_variable": globals().get("left_by_student"),
    "left_env": os.environ.get("LEFT_BY_STUDENT"),
    "left_import": "wave" in sys.modules,
    "left_module": getattr(findings, "LEFT_BY_STUDENT", None),
    "left_cache": findings.catalog().get("left.by.student"),
    "left_run": None if nbapi.SESSION.run is None else str(nbapi.SESSION.run.target.root),
    "left_files": [f for f in fds if "left-by-" in f],
}}}}, raw=True)
'''

LEAVE = '''
import wave  # an import the notebook caused
left_by_student = root
os.environ["LEFT_BY_STUDENT"] = root
findings.LEFT_BY_STUDENT = root
findings.catalog()["left.by.student"] = {"what": {"ko": root, "en": root}}
kept_open = open(os.path.join(root, "left-by-" + os.path.basename(root)), "w")
os.chdir(root)
nbapi.start(root=root, mode="check")  # this kernel's run, with its plan and findings (nbapi.SESSION.run)
'''

DIE_OR_HANG = '''
import time
if root.endswith("die"):
    os._exit(3)
if root.endswith("hang"):
    time.sleep(3600)
'''


def notebook(path: Path, *cells: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": KERNEL, "language": "python"}
    params = nbformat.v4.new_code_cell('root = ""\nmode = "check"')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params] + [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, str(path))
    return path


def probes(out: Path, label: str) -> list[dict]:
    nb = json.loads((out / label / "run.ipynb").read_text(encoding="utf-8"))
    return [o["data"][PROBE] for c in nb["cells"] for o in c.get("outputs", []) if PROBE in o.get("data", {})]


@pytest.mark.parametrize("jobs", [1, 2])
def test_nothing_of_one_student_reaches_the_next(tmp_path, jobs):
    roots = []
    for name in ("ann", "bob", "cho", "dan", "eve"):
        (tmp_path / "class" / name).mkdir(parents=True)
        roots.append(str(tmp_path / "class" / name))
    nb_path = notebook(tmp_path / "probe.ipynb", LOOK, LEAVE)
    out = tmp_path / "out"
    grade_class(roots, out, {}, jobs=jobs, notebook=nb_path)
    seen = {}
    for root in roots:
        (found,) = probes(out, Path(root).name)
        seen[root] = found
        assert found["root"] == root  # its own parameter, injected
        assert found["cwd"] == os.getcwd()  # the grader's folder, as a new kernel starts in
        leftovers = {k: v for k, v in found.items() if k.startswith("left_") and v not in (None, False, [])}
        assert leftovers == {}, (root, leftovers)
    pids = [s["pid"] for s in seen.values()]
    assert len(set(pids)) == len(roots)  # a kernel per student
    parents = {s["ppid"] for s in seen.values()}
    assert len(parents) == 1 and parents != {os.getpid()}  # every kernel forked from the one zygote
    for pid in pids:  # and none outlives the grading
        assert not Path(f"/proc/{pid}").exists(), pid
    for root in roots:  # the file each kernel kept open was closed with its kernel, and is still the student's
        assert (Path(root) / f"left-by-{Path(root).name}").is_file()


def test_a_kernel_that_dies_or_hangs_costs_only_its_own_student(tmp_path):
    roots = []
    for name in ("ann", "die", "hang", "bob", "cho"):
        (tmp_path / "class" / name).mkdir(parents=True)
        roots.append(str(tmp_path / "class" / name))
    nb_path = notebook(tmp_path / "fragile.ipynb", LOOK, DIE_OR_HANG, "print('reached the end', root)")
    out = tmp_path / "out"
    result = grade_class(roots, out, {}, jobs=2, notebook=nb_path, timeout=5)
    by_label = {s.label: s for s in result.students}
    for label in ("ann", "bob", "cho"):
        nb = json.loads((out / label / "run.ipynb").read_text(encoding="utf-8"))
        printed = "".join("".join(o.get("text", "")) for c in nb["cells"] for o in c.get("outputs", []))
        assert f"reached the end {tmp_path / 'class' / label}" in printed, label
        # this notebook has no summary: graded as "stopped before its summary", never as a kernel's death
        assert by_label[label].error["ename"] == "NoSummary", by_label[label].error
    died = json.loads((out / "die" / "manifest.json").read_text(encoding="utf-8"))["error"]
    assert died["kind"] == "kernel" and died["cell_index"] == 3 and died["ename"] == "DeadKernelError", died
    assert "종료 코드 3" in died["evalue"] and "exit status 3" in died["evalue"]
    hung = json.loads((out / "hang" / "manifest.json").read_text(encoding="utf-8"))["error"]
    assert hung["kind"] == "timeout" and hung["cell_index"] == 3, hung
    assert "5초" in hung["evalue"] and "within 5 s" in hung["evalue"]
    expected = {"die": ("DeadKernelError", "다른 학생은 모두", "every other student"),
                "hang": ("CellTimeoutError", "다른 학생은 기다리지 않고", "no other student waited")}
    for label, (ename, ko, en) in expected.items():  # archived as far as it ran: the first cells' outputs are there
        (found,) = probes(out, label)
        assert found["root"] == str(tmp_path / "class" / label)
        assert by_label[label].error["ename"] == ename
        feedback = (out / label / "feedback.html").read_text(encoding="utf-8")
        assert ko in feedback and en in feedback
