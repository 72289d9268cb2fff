"""A newcomer's checkout (issue 41): it holds no run output, what a run leaves in it is ignored, and the
README's commands work as written once `.venv` is activated, as the README says right after `make run`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from helpers import REPO

RUN_OUTPUTS = ("runbook-lab-root", "runbook-archive", "lab-root", "out", "grades")


def git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, timeout=60)


def test_the_checkout_holds_no_run_output():
    tracked = git("ls-files").stdout.splitlines()
    assert tracked
    assert [p for p in tracked if p.split("/")[0] in RUN_OUTPUTS] == []
    assert [p for p in tracked if ".runbook-backup-" in p] == []  # a run's backup
    assert [p for p in tracked if p.endswith(".lock")] == []  # a run's lock


def test_what_a_run_leaves_in_the_checkout_is_ignored():
    for name in RUN_OUTPUTS:
        ignored = git("check-ignore", "-q", f"{name}/etc/containerd/config.toml")
        assert ignored.returncode == 0, name


def test_the_readme_says_to_activate_the_venv_and_then_its_commands_are_found():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "\n. .venv/bin/activate\n" in readme
    venv = Path(sys.executable).parent.parent  # the .venv these tests run in, `make venv`'s
    plain = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV",)}
    plain["PATH"] = "/usr/local/bin:/usr/bin:/bin"
    found = subprocess.run(["bash", "-c", f". {venv}/bin/activate && command -v runbook papermill jupyter"],
                           capture_output=True, text=True, env=plain, timeout=60)
    assert found.returncode == 0, found.stderr
    assert found.stdout.split() == [f"{venv}/bin/{name}" for name in ("runbook", "papermill", "jupyter")]
