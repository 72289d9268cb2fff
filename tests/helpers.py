"""Shared test helpers: where the shared data is, running the real notebook, hashing a tree."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
NOTEBOOK = REPO / "notebooks" / "run.ipynb"
FIXTURES = SHARED / "fixtures" / "containerd"
LAB_BASE = FIXTURES / "lab-config.toml.base"
COURSE_FIXTURE = "opt/fixtures/gpu-airgap/containerd/config.toml.base"


def run_notebook(root: Path, out: Path, **params):
    """Execute notebooks/run.ipynb with papermill, as a user would; returns the executed notebook."""
    import papermill

    return papermill.execute_notebook(str(NOTEBOOK), str(out), parameters={"root": str(root), **params},
                                      progress_bar=False, log_output=False, kernel_name="python3")


def step_records(nb) -> dict:
    from runbook_lib.archive import records
    steps, summary = records(nb)
    if summary is not None:
        return {s["step"]: s for s in summary["steps"]}
    return {s["step"]: s for s in steps}


def tree_state(root: Path) -> dict[str, tuple]:
    """Every entry under root: kind, mode, bytes hash (or link target) — to prove nothing changed."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = p.lstat()
            rel = str(p.relative_to(root))
            if p.is_symlink():
                state[rel] = ("link", os.readlink(p))
            elif p.is_dir():
                state[rel] = ("dir", st.st_mode)
            else:
                state[rel] = ("file", st.st_mode, hashlib.sha256(p.read_bytes()).hexdigest(), st.st_mtime_ns)
    return state


def put_course_fixture(root: Path, content: bytes | None = None) -> Path:
    dest = root / COURSE_FIXTURE
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(content if content is not None else LAB_BASE.read_bytes())
    return dest
