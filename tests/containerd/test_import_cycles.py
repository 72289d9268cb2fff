"""An `imports` cycle is read as containerd reads it (issue 54): every path cleaned as containerd's resolveImports
cleans it (relative to the importing file's folder, `..` and `.` folded, globs expanded), each file read once
(LoadConfig's `loaded` guard, the main file in it from the start), and each import back to a file on its own chain
said once as a bilingual warning at the entry's line, naming both files. Before, `conf.d/gpu.toml` importing
`../config.toml` grew a path `/conf.d/../conf.d/...` until the run's time limit.

The first tests are the rule on the reading itself (milliseconds); the last ones are the user's command, plain
papermill on a root `runbook lab-init` made (lab profile) or a node's config (`-p profile node`): the run ends
with the finding. Their subprocess timeout only guards against a hang; it asserts no speed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from grading_helpers import step_records
from helpers import LAB_BASE, NOTEBOOK, REPO
from kernel_ports import run_papermill
from runbook_lib.containerd.diagnose import import_cycle_problems
from runbook_lib.containerd.effective import import_path, load_effective
from runbook_lib.fs.target import Target

MAIN = "/etc/containerd/config.toml"
GPU = "/etc/containerd/conf.d/gpu.toml"
BASE = LAB_BASE.read_text()
BIN = Path(sys.executable).parent
HANG_GUARD = 120  # seconds: a hang's guard, not a speed assertion

# name -> (the main file's imports line, {other file: its text}, the expected cycle: (importer, entry, target,
# 1-based line of the entry), the files read in containerd's order)
SHAPES = {
    "self": ('imports = ["config.toml"]', {}, (MAIN, "config.toml", MAIN, 1), [MAIN]),
    "self-absolute-uncleaned": ('imports = ["/etc/containerd/./config.toml"]', {},
                                (MAIN, "/etc/containerd/./config.toml", MAIN, 1), [MAIN]),
    "two-files": ('imports = ["/etc/containerd/conf.d/gpu.toml"]',
                  {GPU: 'version = 2\nimports = ["/etc/containerd/config.toml"]\n'},
                  (GPU, "/etc/containerd/config.toml", MAIN, 2), [MAIN, GPU]),
    "relative": ('imports = ["conf.d/gpu.toml"]', {GPU: 'version = 2\nimports = ["../config.toml"]\n'},
                 (GPU, "../config.toml", MAIN, 2), [MAIN, GPU]),
    "glob": ('imports = ["/etc/containerd/conf.d/*.toml"]',
             {GPU: 'version = 2\n# back to the main file\nimports = ["../config.toml"]\n',
              "/etc/containerd/conf.d/zz-empty.toml": ""},
             (GPU, "../config.toml", MAIN, 3), [MAIN, GPU, "/etc/containerd/conf.d/zz-empty.toml"]),
    "glob-matching-itself": ('imports = ["/etc/containerd/conf.d/gpu.toml"]', {GPU: 'version = 2\nimports = ["*.toml"]\n'},
                             (GPU, "*.toml", GPU, 2), [MAIN, GPU]),
}


def _root(tmp: Path, imports: str, others: dict[str, str]) -> Path:
    root = tmp / "root"
    (root / "etc/containerd/conf.d").mkdir(parents=True)
    (root / MAIN.lstrip("/")).write_text(imports + "\n" + BASE)
    for path, text in others.items():
        (root / path.lstrip("/")).write_text(text)
    return root


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_cycle_is_read_once_and_named_at_its_entry(tmp_path, shape):
    imports, others, (importer, entry, target, line), order = SHAPES[shape]
    eff = load_effective(Target(_root(tmp_path, imports, others)), MAIN)
    assert [f.lab_path for f in eff.files] == order  # each file once, as containerd reads them
    (cycle,) = eff.import_cycles
    assert (cycle.importer, cycle.entry, cycle.target) == (importer, entry, target)
    assert cycle.chain[0] == MAIN and cycle.chain[-2:] == (importer, target)
    (problem,) = import_cycle_problems(eff)
    assert (problem.code, problem.path, problem.line, problem.severity) == ("config.import_cycle", importer, line, "warning")
    for text in (problem.what.en, problem.fix.en):
        assert importer in text and entry in text
    assert target in problem.what.en and target in problem.what.ko and importer in problem.fix.ko


def test_a_file_imported_by_two_files_is_no_cycle(tmp_path):
    """A diamond (the main file and a drop-in both import one file) is read once and said nothing about."""
    other = "/etc/containerd/conf.d/site.toml"
    eff = load_effective(Target(_root(tmp_path, f'imports = ["conf.d/gpu.toml", "{other}"]',
                                      {GPU: "version = 2\n", other: 'version = 2\nimports = ["gpu.toml"]\n'})), MAIN)
    assert [f.lab_path for f in eff.files] == [MAIN, GPU, other]
    assert eff.import_cycles == [] and import_cycle_problems(eff) == []


def test_an_uncleaned_relative_entry_names_the_file_containerd_names():
    """resolveImports: filepath.Clean, then filepath.Join with the importing file's folder (which cleans again)."""
    assert import_path(GPU, "../config.toml") == MAIN
    assert import_path(MAIN, "conf.d/../conf.d/./gpu.toml") == GPU
    assert import_path(GPU, "../../containerd/conf.d/*.toml") == "/etc/containerd/conf.d/*.toml"
    assert import_path(MAIN, "//etc//containerd/config.toml") == MAIN
    assert import_path("/config.toml", "../../x.toml") == "/x.toml"  # '..' stops at the root, as in Go


def test_two_spellings_of_one_import_read_it_once(tmp_path):
    eff = load_effective(Target(_root(tmp_path, 'imports = ["conf.d/gpu.toml", "conf.d/../conf.d/./gpu.toml"]',
                                      {GPU: "version = 2\n"})), MAIN)
    assert [f.lab_path for f in eff.files] == [MAIN, GPU]
    assert eff.import_cycles == []


def test_a_relative_glob_fix_names_the_cleaned_absolute_path(tmp_path):
    from runbook_lib.containerd.diagnose import relative_glob_problems
    eff = load_effective(Target(_root(tmp_path, 'imports = ["../containerd/conf.d/*.toml"]', {GPU: "version = 2\n"})), MAIN)
    (problem,) = relative_glob_problems(eff)
    assert problem.values["absolute"] == "/etc/containerd/conf.d/*.toml"


# --- plain papermill: the user's command ends with the finding ----------------------------------------------

def _papermill(root: Path, out: Path, *args: str) -> subprocess.CompletedProcess:
    return run_papermill([str(BIN / "papermill"), "--no-progress-bar", "--log-level", "ERROR", str(NOTEBOOK), str(out),
                          "-p", "root", str(root), *args], capture_output=True, text=True, timeout=HANG_GUARD, cwd=REPO)


def _problems(executed: Path) -> list[dict]:
    return [p for record in step_records(executed).values() for p in record.get("problems", [])]


def test_plain_papermill_on_a_lab_root_ends_with_the_cycle_named(tmp_path):
    """The issue's shape (conf.d/gpu.toml importing ../config.toml) through the user's command; every shape's
    reading is test_a_cycle_is_read_once_and_named_at_its_entry's, in process."""
    imports, others, (importer, entry, target, line), _ = SHAPES["relative"]
    root = tmp_path / "lab"
    subprocess.run([str(BIN / "runbook"), "lab-init", str(root)], check=True, capture_output=True, timeout=HANG_GUARD)
    (root / "etc/containerd/conf.d").mkdir(parents=True)
    base = (root / "opt/fixtures/gpu-airgap/containerd/config.toml.base").read_text()
    (root / MAIN.lstrip("/")).write_text(imports + "\n" + base)
    for path, text in others.items():
        (root / path.lstrip("/")).write_text(text)
    out = tmp_path / "out.ipynb"
    proc = _papermill(root, out)
    assert proc.returncode == 0, proc.stderr[-3000:]  # containerd reads each file once: the run passes, warned
    found = [p for p in _problems(out) if p["code"] == "config.import_cycle"]
    assert found, proc.stderr[-3000:]
    assert {(p["path"], p["line"], p["values"]["entry"], p["values"]["target"]) for p in found} == {(importer, line, entry, target)}
    text = out.read_text()
    assert "../conf.d/../" not in text and "-p time_limit 600" not in text  # no path growing to the time limit
    assert "warning: the imports go round in a circle" in text and "주의: imports 가 돌고 돕니다" in text


def test_plain_papermill_on_a_node_root_ends_with_the_cycle_named(tmp_path):
    imports, others, (importer, entry, target, line), _ = SHAPES["relative"]
    root = _root(tmp_path, imports, others)
    out = tmp_path / "out.ipynb"
    proc = _papermill(root, out, "-p", "profile", "node", "-p", "mode", "check")
    found = [p for p in _problems(out) if p["code"] == "config.import_cycle"]
    assert {(p["path"], p["line"], p["values"]["entry"]) for p in found} == {(importer, line, entry)}, proc.stderr[-3000:]
    assert "-p time_limit 600" not in out.read_text()  # (check mode fails on the missing CDI spec: not this test's)
