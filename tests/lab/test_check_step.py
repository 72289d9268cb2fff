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
