"""`runbook lab-init`'s next steps name the commands as a newcomer can type them (issue 41): after `make run` they
live in .venv/bin, on no PATH until activated, so the guidance gives their path then, and their name otherwise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent


def lab_init(root: Path, path: str) -> str:
    env = {**os.environ, "PATH": path}
    said = subprocess.run([str(BIN / "runbook"), "lab-init", str(root)], capture_output=True, text=True, env=env,
                          timeout=120)
    assert said.returncode == 0, said.stderr
    return said.stdout


def test_outside_the_venv_the_guidance_gives_each_commands_path(tmp_path):
    said = lab_init(tmp_path / "lab", "/usr/bin:/bin")
    assert f"{BIN / 'jupyter'} lab " in said
    assert f"{BIN / 'runbook'} check --step 1 {tmp_path / 'lab'}" in said


def test_inside_the_venv_the_guidance_gives_each_commands_name(tmp_path):
    said = lab_init(tmp_path / "lab", f"{BIN}:/usr/bin:/bin")
    assert f"{BIN / 'jupyter'}" not in said and " jupyter lab " in said
    assert f" runbook check --step 1 {tmp_path / 'lab'}" in said


def test_without_jupyterlab_the_guidance_first_says_how_to_install_it(tmp_path):
    """`make test` and `make run` install no JupyterLab (`make lab` does): the student who has none is told how to
    get it before being told to open the notebook in it."""
    from runbook_lib.lab.init_root import guidance

    said = guidance("lab.next", str(tmp_path), jupyterlab=False)
    assert "make lab" in said and f"{sys.executable} -m pip install jupyterlab" in said
    assert said.index("make lab") < said.index("1) ")  # before the steps that open JupyterLab
    assert "JupyterLab 이 없습니다: " in said and "has no JupyterLab yet: install it with make lab" in said
    assert "make lab" not in guidance("lab.next", str(tmp_path), jupyterlab=True)
