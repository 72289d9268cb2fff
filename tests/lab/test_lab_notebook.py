"""The student edition, notebooks/lab.ipynb, as a student uses it: `runbook lab-init ROOT` says what to open and
what to write, the student does each step by hand in the empty cell (shell commands and Python, in a real
kernel), and the step's check cell passes; before the work it failed. Nothing in the notebook gives the answer
away, and the step checks judge as `runbook grade` does (runbook_lib/lab/check_step.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from helpers import REPO, tree_state
from runbook_lib.lab.mistakes import MISTAKES
from student_kernel import Student, code_cells

LAB = REPO / "notebooks" / "lab.ipynb"
STEPS = ["prepare", "runtime", "options", "default", "parse", "cdi", "runtimeclass", "report"]
NAMES = ["params", "start"] + [n for s in STEPS for n in (s + "!", s + "?")]

# What a student types into each step's empty cell, following the task (shell with `!`, or Python).
WORK = {
    "prepare": "!mkdir -p {root}/etc/containerd {root}/root/toolkit\n"
               "!cp {root}/opt/fixtures/gpu-airgap/containerd/config.toml.base {root}/etc/containerd/config.toml",
    "runtime": "cfg = rb.path('/etc/containerd/config.toml')\n"
               "text = open(cfg).read().replace('    [plugins.\"io.containerd.grpc.v1.cri\".cni]',\n"
               "    '        [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\\n'\n"
               "    '          runtime_type = \"io.containerd.runc.v2\"\\n\\n'\n"
               "    '    [plugins.\"io.containerd.grpc.v1.cri\".cni]', 1)\n"
               "open(cfg, 'w').write(text)",
    "options": "text = open(cfg).read().replace('    [plugins.\"io.containerd.grpc.v1.cri\".cni]',\n"
               "    '          [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\\n'\n"
               "    '            BinaryName = \"/usr/bin/nvidia-container-runtime\"\\n'\n"
               "    '            SystemdCgroup = true\\n\\n'\n"
               "    '    [plugins.\"io.containerd.grpc.v1.cri\".cni]', 1)\n"
               "open(cfg, 'w').write(text)",
    "default": "import tomllib\n"
               "d = tomllib.load(open(cfg, 'rb'))\n"
               "cri = d['plugins']['io.containerd.grpc.v1.cri']['containerd']\n"
               "open(rb.path('/root/toolkit/default.txt'), 'w').write(f\"DEFAULT={cri['default_runtime_name']}\\nWHY=runtimeclass\\n\")",
    "parse": "d = tomllib.load(open(cfg, 'rb'))\n"
             "names = sorted(d['plugins']['io.containerd.grpc.v1.cri']['containerd']['runtimes'])\n"
             "open(rb.path('/root/toolkit/parsed.txt'), 'w').write(f\"VERSION={d['version']}\\nRUNTIMES={','.join(names)}\\n\")",
    "cdi": "!mkdir -p {root}/etc/cdi\n"
           "spec = 'cdiVersion: \"0.5.0\"\\nkind: nvidia.com/gpu\\ndevices:\\n  - name: all\\n    containerEdits:\\n'\\\n"
           "       '      deviceNodes:\\n        - path: /dev/nvidia0\\ncontainerEdits:\\n  deviceNodes:\\n    - path: /dev/nvidiactl\\n'\n"
           "open(rb.path('/etc/cdi/nvidia.yaml'), 'w').write(spec)\n"
           "import yaml\n"
           "keys = list(yaml.safe_load(open(rb.path('/etc/cdi/nvidia.yaml'))))\n"
           "open(rb.path('/root/toolkit/cdi-keys.txt'), 'w').write(''.join(k + '\\n' for k in keys))",
    "runtimeclass": "open(rb.path('/root/toolkit/runtimeclass.yaml'), 'w').write(\n"
                    "    'apiVersion: node.k8s.io/v1\\nkind: RuntimeClass\\nmetadata:\\n  name: nvidia\\nhandler: nvidia\\n')",
    "report": "d = tomllib.load(open(cfg, 'rb'))\n"
              "rt = d['plugins']['io.containerd.grpc.v1.cri']['containerd']['runtimes']['nvidia']\n"
              "rc = yaml.safe_load(open(rb.path('/root/toolkit/runtimeclass.yaml')))\n"
              "open(rb.path('/root/toolkit/report.txt'), 'w').write(\n"
              "    f\"CONFIG_VERSION={d['version']}\\nRUNTIME={rc['handler']}\\nRUNTIME_TYPE={rt['runtime_type']}\\n\"\n"
              "    f\"SYSTEMD_CGROUP={str(rt['options']['SystemdCgroup']).lower()}\\nHANDLER={rc['handler']}\\n\")",
}


def runbook(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runbook_lib.cli", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def student():
    s = Student(code_cells(LAB, NAMES))
    yield s
    s.close()


def test_a_student_goes_from_lab_init_to_every_step_passing_by_following_what_the_runbook_says(student, tmp_path):
    said = runbook("lab-init", str(tmp_path / "lab"))
    assert said.returncode == 0, said.stderr
    # what it says to open, and the line to write into the first code cell
    assert f"jupyter lab {LAB}" in said.stdout
    root_line = re.search(r'root = "[^"]+"', said.stdout).group()
    assert "runbook run --root" not in said.stdout  # it once said so: the runbook would do the lab for the student
    assert student.run(root_line)[1] is None
    shown, error = student.cell("start")
    assert error is None, shown
    assert "이 단계 확인" in shown and "check this step" in shown
    for step in STEPS:
        shown, error = student.cell(step + "?")  # before the work: the check says what is missing, with the fix
        assert error == "StepFailed" and "[FAILED]" in shown and "fix:" in shown, (step, shown)
        assert "Traceback" not in shown
        cell = student.cells[step + "!"]  # the empty cell under the task: only its one-line heading comment
        assert cell.startswith("# ") and "\n" not in cell.strip(), cell
        shown, error = student.run(cell + WORK[step])  # the student's work, typed into that cell
        assert error is None, (step, shown)
        shown, error = student.cell(step + "?")
        assert error is None, (step, shown)
        assert "[PASSED]" in shown, (step, shown)


def test_the_check_cells_write_nothing_under_the_students_root(student, tmp_path):
    assert runbook("lab-init", str(tmp_path)).returncode == 0
    student.run(f"root = {str(tmp_path)!r}")
    student.cell("start")
    before = tree_state(tmp_path)
    for step in STEPS:
        assert student.cell(step + "?")[1] == "StepFailed"
    assert tree_state(tmp_path) == before


def test_the_student_edition_reveals_no_solution():
    text = LAB.read_text()
    cells = ["".join(c["source"]) for c in json.loads(text)["cells"]]
    for source in cells:
        assert not re.search(r"runtimes\.nvidia\]|runtimes\.nvidia\.options\]", source), source[:80]  # the table
        assert "SystemdCgroup = true" not in source and "BinaryName = " not in source
        for line in ("CONFIG_VERSION=2", "RUNTIME=nvidia", "RUNTIME_TYPE=io.containerd.runc.v2", "SYSTEMD_CGROUP=true",
                     "HANDLER=nvidia", "RUNTIMES=nvidia", "DEFAULT=runc"):
            assert line not in source, line  # the report's (and the toolkit files') values
        assert not re.search(r"kind:\s*RuntimeClass|handler:\s*nvidia|apiVersion:\s*node\.k8s\.io", source)
        assert "rb.write" not in source and "rb.plan" not in source  # nothing that would do the lab for them
    work = [s for s in cells if s.startswith("# ") and "do it yourself here" in s]
    assert len(work) == len(STEPS) and all(len(s.strip().splitlines()) == 1 for s in work)  # empty but for the line


def test_the_student_edition_is_what_the_generator_writes_and_is_shipped_once():
    sys.path.insert(0, str(REPO / "tools"))
    import build_notebook
    assert LAB.read_text() == build_notebook.render_lab(), "run `make notebook` after editing tools/lab_tasks.py"
    link = REPO / "runbook_lib" / "data" / "lab.ipynb"
    assert link.is_symlink() and link.resolve() == LAB.resolve()
    for c in json.loads(LAB.read_text())["cells"]:
        if c["cell_type"] == "code":
            assert c["outputs"] == [] and c["execution_count"] is None


def test_every_step_of_the_student_edition_shares_the_runbooks_heading_and_why():
    sys.path.insert(0, str(REPO / "tools"))
    import build_notebook
    lab_md = ["".join(c["source"]) for c in json.loads(LAB.read_text())["cells"] if c["cell_type"] == "markdown"]
    for n, md in build_notebook.STEPS.items():
        if n > len(STEPS):
            continue
        parts = build_notebook.step_parts(md)
        assert any(all(parts[k] in cell for k in ("heading_ko", "why_ko", "heading_en", "why_en")) for cell in lab_md), n


def test_lab_init_with_a_mistake_says_how_to_find_it_and_the_check_names_it(tmp_path):
    said = runbook("lab-init", "--mistake", "string-boolean", str(tmp_path / "quiz"))
    assert said.returncode == 0, said.stderr
    assert f"runbook check --step N {tmp_path / 'quiz'}" in said.stdout and str(LAB) in said.stdout
    checked = runbook("check", "--step", "3", str(tmp_path / "quiz"))
    assert checked.returncode == 1
    assert "[FAILED] 3." in checked.stdout and "/etc/containerd/config.toml:35" in checked.stdout
    assert "SystemdCgroup = true" in checked.stdout  # the fix
    assert runbook("check", "--step", "2", str(tmp_path / "quiz")).returncode == 0


@pytest.mark.parametrize("kind", [m.kind for m in MISTAKES])
def test_a_step_check_gives_the_full_gradings_verdict_in_its_words(kind, tmp_path):
    # the grading's check mode over every step (what run.ipynb's cells do), against the one step checked alone
    from runbook_lib.lab.check_step import check_step
    from runbook_lib.lab.init_root import add_mistakes
    from runbook_lib.lab.mistakes import BY_KIND
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run

    add_mistakes(str(tmp_path), kind)
    graded = Run(validate(root=str(tmp_path), mode="check")).start()
    try:
        full = {r.id: r for r in graded.run_all().values()}
    finally:
        graded.finish()
    step = BY_KIND[kind].step
    alone = check_step({"root": str(tmp_path)}, step)
    assert alone.failed and alone.as_record() == full[step].as_record()


def test_every_markdown_cell_of_the_student_edition_speaks_korean_then_english():
    hangul = re.compile(r"[\uac00-\ud7a3]")
    for c in json.loads(LAB.read_text())["cells"]:
        if c["cell_type"] == "markdown":
            text = "".join(c["source"])
            first = hangul.search(text)
            assert first, text[:80]
            assert len(re.findall(r"\b[A-Za-z]{3,}\b", text[first.start():])) > 15, text[:80]


def test_a_step_check_says_what_runbook_grade_says(tmp_path):
    # the real grading (run.ipynb's cells in check mode, through runbook grade's code) against the one step
    # checked alone, for the lab's two classic mistakes and the steps after them, which are right once the mistake
    # is fixed (judged on the corrected input: they pass in both, issue 41)
    from runbook_lib.grading.grade import grade_class
    from runbook_lib.lab.check_step import check_step
    from runbook_lib.lab.init_root import add_mistakes

    kinds = {"unquoted-header": ("runtime", "options", "runtimeclass"), "string-boolean": ("options", "report")}
    mistaken = {"unquoted-header": "runtime", "string-boolean": "options"}
    for kind in kinds:
        add_mistakes(str(tmp_path / "class" / kind), kind)
    graded = grade_class([str(tmp_path / "class" / k) for k in kinds], tmp_path / "grades", jobs=2)
    for s in graded.students:
        by_id = {r["id"]: r for r in s.steps}
        for step in kinds[s.label]:
            alone = check_step({"root": s.root}, step).as_record()
            assert alone["status"] == ("failed" if step == mistaken[s.label] else "passed"), (s.label, step)
            assert by_id[step]["status"] == alone["status"], (s.label, step)
            assert by_id[step]["problems"] == alone["problems"], (s.label, step)
            assert by_id[step]["message"] == alone["message"], (s.label, step)
