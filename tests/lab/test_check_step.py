"""An unknown step named to `runbook check --step` or `rb.check_step(...)`: a bilingual refusal naming the steps
there are (exit 2 on the command line), never a Python error (it was AttributeError at check_step.py:27)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from runbook_lib.findings.errors import RunbookError
from runbook_lib.lab import student
from runbook_lib.lab.init_root import finished_lab


def runbook(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runbook_lib.cli", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("step", ["0", "10", "foo"])
def test_runbook_check_refuses_an_unknown_step_with_the_steps_named_and_exit_2(tmp_path, step):
    finished_lab(str(tmp_path / "kim"))
    said = runbook("check", "--step", step, str(tmp_path / "kim"))
    assert said.returncode == 2, said.stderr
    out = said.stdout + said.stderr
    assert "Traceback" not in out and "AttributeError" not in out
    assert f'there is no step "{step}"' in out and f'그런 단계는 없습니다: "{step}"' in out
    assert "1 prepare, 2 runtime, 3 options" in out and "8 report" in out
    assert "fix: name a step by its number or its name" in out


def test_rb_check_step_with_an_unknown_name_is_the_same_finding_in_a_cell(tmp_path):
    finished_lab(str(tmp_path / "kim"))
    rb = student.start(root=str(tmp_path / "kim"))
    with pytest.raises(RunbookError) as refused:
        rb.check_step("option")
    assert refused.value.code == "lab.unknown_step"
    shown = "\n".join(refused.value._render_traceback_())  # what the cell shows instead of a traceback
    assert 'there is no step "option"' in shown and "3 options" in shown and "9 containerd" not in shown
    assert "고치기:" in shown and "fix:" in shown


@pytest.mark.parametrize("given, said_en, said_ko", [
    (["-p", "root", "/elsewhere"], "give the root as the ROOT argument, not with -p root: runbook check --step N ROOT",
     "root 는 -p root 가 아니라 ROOT 인자로 주세요: runbook check --step N ROOT"),
    (["-p", "mode", "apply"], "runbook check judges in check mode only (nothing is written under the root); "
     "drop -p mode apply.", "runbook check 는 check 모드로만 판정합니다 (root 에 아무것도 쓰지 않습니다). "
     "-p mode apply 를 빼세요."),
])
def test_runbook_check_refuses_a_parameter_it_would_otherwise_ignore_or_obey_behind_the_root(tmp_path, given,
                                                                                            said_en, said_ko):
    """-p root would judge another folder than ROOT, and -p mode apply would be checked anyway: both refused
    (exit 2), as `runbook grade` refuses them, and nothing is judged."""
    finished_lab(str(tmp_path / "kim"))
    said = runbook("check", "--step", "3", str(tmp_path / "kim"), *given)
    assert (said.returncode, said.stdout, said.stderr) == (2, "", f"{said_ko}\n{said_en}\n")


def test_runbook_check_takes_mode_check_as_said(tmp_path):
    finished_lab(str(tmp_path / "kim"))
    said = runbook("check", "--step", "3", str(tmp_path / "kim"), "-p", "mode", "check")
    assert said.returncode == 0, said.stderr
    assert said.stdout.startswith("[PASSED] 3. ")
