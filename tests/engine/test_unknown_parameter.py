"""A typo applies nothing (issue 51): a parameter name the notebook does not have (`-p mdoe check`) is refused at
every way in, plain papermill included, before anything is planned or written. papermill itself only warns
("Passed unknown parameter: mdoe") and would run on without the value, applying a node that was to be checked.

Through plain papermill (its command line, as a user types it) on a lab root made by `runbook lab-init` and on a
node root (containerd 2.x's own default config, the node's CDI spec in /var/run/cdi): the run fails at the
validation cell, every file under the root keeps its bytes (and no file appears or goes), and the terminal says
why first (the kernel's stdout), above papermill's traceback: the unknown name and the parameter it nearly spells,
in Korean and English. The same words from `runbook run`, `runbook check` and `make run`'s runner
(engine/params.refuse_unknown, one finding: parameter.unknown). The same command spelt right is not refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import FIXTURES, NOTEBOOK, REPO
from kernel_ports import run_papermill
from runbook_lib.engine.params import PARAM_NAMES, refuse_unknown
from runbook_lib.findings.errors import ParameterError
from runbook_lib.findings.problem import Problem
from runbook_lib.findings.text import lines as finding_lines

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "steps"))
from test_default_runtime import NODE_SPEC  # noqa: E402 - the node's own spec, as nvidia-ctk writes it

LAB_NOTEBOOK = REPO / "notebooks" / "lab.ipynb"
CONTAINERD_2_DEFAULT = FIXTURES / "containerd-2.4.2-default.toml"  # `containerd config default` of 2.4.2

# what the refusal says of `mdoe`, pinned here in both languages (the catalog's words, runbook_lib/data/findings.yaml)
KO_NAME, EN_NAME = "mdoe (뜻한 파라미터는 mode 인 듯합니다)", "unknown parameter: mdoe (meaning mode, it seems)"
KO_FIX, EN_FIX = "-p mdoe 대신 -p mode", "-p mode instead of -p mdoe"
KO_ROOT, EN_ROOT = "루트는 그대로입니다", "the root is as it was"


def lab_root(tmp_path: Path) -> Path:
    root = tmp_path / "lab"
    made = subprocess.run([sys.executable, "-m", "runbook_lib.cli", "lab-init", str(root)], capture_output=True,
                          text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    return root


def node_root(tmp_path: Path) -> Path:
    """A node as containerd 2.x installs it (`containerd config default`), with the node's CDI spec where
    nvidia-ctk's generate-at-boot service puts it (/var/run/cdi)."""
    root = tmp_path / "node"
    (root / "etc/containerd").mkdir(parents=True)
    (root / "etc/containerd/config.toml").write_bytes(CONTAINERD_2_DEFAULT.read_bytes())
    (root / "var/run/cdi").mkdir(parents=True)
    (root / "var/run/cdi/nvidia.yaml").write_text(NODE_SPEC)
    return root


ROOTS = {"lab": (lab_root, []), "node": (node_root, ["-p", "profile", "node"])}


def everything(root: Path) -> dict[str, tuple]:
    """Every entry under the root: a file as its bytes and mode, a folder as its mode, a link as its target."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel, st = str(path.relative_to(root)), path.lstat()
            if path.is_symlink():
                out[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                out[rel] = ("dir", st.st_mode)
            else:
                out[rel] = ("file", path.read_bytes(), st.st_mode)
    return out


def papermill(notebook: Path, out: Path, *args: str) -> subprocess.CompletedProcess:
    """Plain papermill's command line, its stdout and stderr in one stream as a terminal shows them (the kernel
    papermill starts writes to the same terminal)."""
    return run_papermill([sys.executable, "-m", "papermill", str(notebook), str(out), *args],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)


def validation_cell(nb: dict, call: str) -> int:
    return next(i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code" and call in "".join(c["source"]))


@pytest.mark.parametrize("kind", ROOTS)
def test_a_misspelt_parameter_through_plain_papermill_is_refused_and_the_root_keeps_every_byte(tmp_path, kind):
    make, profile = ROOTS[kind]
    root = make(tmp_path)
    before = everything(root)
    out = tmp_path / "out.ipynb"
    proc = papermill(NOTEBOOK, out, "-p", "root", str(root), *profile, "-p", "mdoe", "check")
    said = proc.stdout
    assert proc.returncode != 0, said
    assert everything(root) == before, "a refused run changed the root"
    for words in (KO_NAME, EN_NAME, KO_FIX, EN_FIX, KO_ROOT, EN_ROOT):
        assert words in said, (words, said)
    assert said.index(EN_NAME) < said.index("Traceback (most recent call last)"), said  # the reason comes first
    # the terminal says what the Python API says, line for line (one function, one finding)
    with pytest.raises(ParameterError) as refused:
        refuse_unknown(["mdoe"])
    for line in finding_lines(Problem.from_error(refused.value)):
        assert line.strip() in said, line
    # stopped at the validation cell: no cell after it ran, so no step planned or wrote
    nb = json.loads(out.read_text(encoding="utf-8"))
    at = validation_cell(nb, "nb.start(")
    assert [o["ename"] for o in nb["cells"][at]["outputs"] if o["output_type"] == "error"] == ["ParameterError"]
    assert [c["execution_count"] for c in nb["cells"][at + 1:] if c["cell_type"] == "code"] == \
        [None] * sum(c["cell_type"] == "code" for c in nb["cells"][at + 1:])


@pytest.mark.parametrize("kind", ROOTS)
def test_the_same_command_spelt_right_is_not_refused(tmp_path, kind):
    """`-p mode check` where the typo was: the validation cell passes, the run reaches its summary in check mode
    (which writes nothing), and no refusal of a parameter is said. papermill's own --inject-paths names are
    papermill's, not a typo."""
    make, profile = ROOTS[kind]
    root = make(tmp_path)
    before = everything(root)
    out = tmp_path / "out.ipynb"
    proc = papermill(NOTEBOOK, out, "--inject-paths", "-p", "root", str(root), *profile, "-p", "mode", "check")
    nb = json.loads(out.read_text(encoding="utf-8"))
    at = validation_cell(nb, "nb.start(")
    assert [o for o in nb["cells"][at]["outputs"] if o["output_type"] == "error"] == [], proc.stdout
    from helpers import step_records
    from runbook_lib.evidence.archive import records
    summary = records(nb)[1]
    assert summary is not None and summary["mode"] == "check", proc.stdout
    assert set(step_records(nb)) >= {1, 2, 8}
    assert "이 노트북에 없는 파라미터" not in proc.stdout and "its value would be used nowhere" not in proc.stdout
    assert everything(root) == before, "check mode wrote under the root"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, timeout=300, cwd=cwd)


@pytest.mark.parametrize("way", ["runbook run", "runbook check", "make run's runner"])
def test_every_other_way_in_refuses_the_typo_with_the_same_words(tmp_path, way):
    root = node_root(tmp_path)
    before = everything(root)
    work = tmp_path / "work"
    work.mkdir()
    command = {
        "runbook run": ["runbook_lib.cli", "run", "--root", str(root), "-p", "profile", "node", "-p", "mdoe", "check"],
        "runbook check": ["runbook_lib.cli", "check", "--step", "2", str(root), "-p", "mdoe", "check"],
        "make run's runner": ["runbook_lib.runner", "--show", "--log-level", "WARNING", "--no-progress-bar",
                              str(NOTEBOOK), str(tmp_path / "out.ipynb"), "-p", "root", str(root),
                              "-p", "profile", "node", "-p", "mdoe", "check"],
    }[way]
    proc = cli(*command, cwd=work)
    said = proc.stdout + proc.stderr
    assert proc.returncode == (1 if way == "make run's runner" else 2), said  # a failed run / refused request
    with pytest.raises(ParameterError) as refused:
        refuse_unknown(["mdoe"])
    for line in finding_lines(Problem.from_error(refused.value)):
        assert line.strip() in said, (line, said)
    for words in (KO_NAME, EN_NAME, KO_FIX, EN_FIX):
        assert words in said
    assert everything(root) == before
    assert list(work.iterdir()) == [], "an archive or a notebook of a refused request"


def test_each_unknown_name_is_said_with_the_parameter_it_nearly_spells():
    with pytest.raises(ParameterError) as refused:
        refuse_unknown({"root": "/srv/lab", "systemd_cgroups": True, "colour": "red", "mdoe": "check"})
    err = refused.value
    assert err.code == "parameter.unknown"
    assert err.what.ko.startswith("이 노트북에 없는 파라미터입니다: colour, mdoe (뜻한 파라미터는 mode 인 듯합니다), "
                                  "systemd_cgroups (뜻한 파라미터는 systemd_cgroup 인 듯합니다).")
    assert err.what.en.startswith("unknown parameter: colour, mdoe (meaning mode, it seems), systemd_cgroups "
                                  "(meaning systemd_cgroup, it seems);")
    assert "-p colour 없이, -p mdoe 대신 -p mode, -p systemd_cgroups 대신 -p systemd_cgroup" in err.fix.ko
    assert "without -p colour, -p mode instead of -p mdoe, -p systemd_cgroup instead of -p systemd_cgroups" \
        in err.fix.en
    assert err.fix.en.endswith("valid parameters: " + ", ".join(PARAM_NAMES))
    refuse_unknown(["root", "mode", "PAPERMILL_INPUT_PATH", "PAPERMILL_OUTPUT_PATH"])  # papermill's own: no typo


def test_the_student_edition_refuses_a_misspelt_root_through_plain_papermill(tmp_path):
    """notebooks/lab.ipynb has one parameter, root: `-p rot ...` is refused by its first cell with the same
    finding, its one parameter named as the fix."""
    import papermill as pm

    from runbook_lib.lab.student import LAB_PARAMETERS

    assert tuple(pm.inspect_notebook(str(LAB_NOTEBOOK))) == LAB_PARAMETERS
    root = lab_root(tmp_path)
    before = everything(root)
    proc = papermill(LAB_NOTEBOOK, tmp_path / "out.ipynb", "-p", "root", str(root), "-p", "rot", str(root))
    assert proc.returncode != 0
    for words in ("rot (뜻한 파라미터는 root 인 듯합니다)", "unknown parameter: rot (meaning root, it seems)",
                  "-p rot 대신 -p root", "-p root instead of -p rot", "valid parameters: root\n"):
        assert words in proc.stdout, (words, proc.stdout)
    assert proc.stdout.index("unknown parameter: rot") < proc.stdout.index("Traceback (most recent call last)")
    assert everything(root) == before
