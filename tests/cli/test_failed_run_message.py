"""A failed run ends with its own reason, in both languages, and where its notebook is: `make run`, `python -m
runbook_lib.runner` and `runbook run` never print papermill's exception name or a traceback, and exit 1."""

from __future__ import annotations

import subprocess
import sys

from helpers import REPO

PAPERMILL_WORDS = ("PapermillExecutionError", "Traceback", "papermill.exceptions", "Exception encountered")


def lab_with_mistake(root) -> str:
    from runbook_lib.lab.init_root import add_mistakes
    add_mistakes(str(root), "string-boolean")
    return str(root)


def said(proc) -> str:
    text = proc.stdout + proc.stderr
    for word in PAPERMILL_WORDS:
        assert word not in text, text
    return text


def test_make_run_on_a_root_that_is_not_there_says_why_and_where_the_notebook_is(tmp_path):
    proc = subprocess.run(["make", "run", "ROOT=/no/such/dir", f"OUT={tmp_path}"], cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode != 0
    text = said(proc)
    assert "root 폴더가 없습니다: /no/such/dir" in text and "the root folder does not exist: /no/such/dir" in text
    assert f"노트북 / notebook: {tmp_path / 'run.ipynb'}" in text


def test_the_runner_ends_a_failed_check_with_the_failed_step_and_the_notebook(tmp_path):
    root = lab_with_mistake(tmp_path / "kim")
    out = tmp_path / "out.ipynb"
    proc = subprocess.run([sys.executable, "-m", "runbook_lib.runner", "--log-level", "WARNING", "--no-progress-bar",
                           str(REPO / "notebooks/run.ipynb"), str(out), "-p", "root", root, "-p", "mode", "check"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1
    text = said(proc)
    assert text.rstrip().endswith(f"노트북 / notebook: {out}")
    assert "the run reached the end, but some steps failed: 3\n" in text  # 5 and 8 are blocked by it, not failed
    assert '3. SystemdCgroup is the string "true"; it must be a TOML boolean.' in text


def test_runbook_run_ends_a_refused_parameter_with_its_words(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "runbook_lib.cli", "run", "--root", str(tmp_path), "-p", "mode",
                           "chek", "--archive", str(tmp_path / "archive")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1
    text = said(proc)
    assert "chek" in text and "실패한 이유 / why it failed:" in text and "노트북 / notebook: " in text
    assert "ParameterError" not in text
