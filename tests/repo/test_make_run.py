"""`make run` on a fresh checkout: the embedded sandbox root is created, all steps pass, nothing outside it."""

import shutil
import subprocess

from helpers import REPO


def test_make_run_creates_the_sandbox_and_passes(tmp_path):
    lab = REPO / "lab-root"
    kept = tmp_path / "kept-lab-root"
    if lab.exists():
        shutil.move(lab, kept)  # the developer's sandbox is put back afterwards
    try:
        out = subprocess.run(["make", "run", f"OUT={tmp_path / 'out'}"], cwd=REPO, capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 0, out.stdout + out.stderr
        assert "통과 / passed" in out.stdout and str(tmp_path / "out" / "run.ipynb") in out.stdout
        assert (lab / "root/toolkit/report.txt").read_text().startswith("CONFIG_VERSION=2\n")
        again = subprocess.run(["make", "run", f"OUT={tmp_path / 'out2'}"], cwd=REPO, capture_output=True, text=True,
                               timeout=300)
        assert again.returncode == 0 and "changed" not in again.stdout.replace("unchanged", "")
    finally:
        if kept.exists():
            shutil.rmtree(lab, ignore_errors=True)
            shutil.move(kept, lab)
