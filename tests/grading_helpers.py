"""Roots in a known state, check mode run on them, and a fingerprint of every byte under a root.

A "lab root" is what a student who did everything right hands in: the runbook applied to the good fixture.
A broken state is that root with one file replaced, so each test changes exactly one thing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from runbook_lib.engine.params import validate
from runbook_lib.engine.result import STEP_MIME, SUMMARY_MIME, Problem, StepResult, read_record
from runbook_lib.engine.run import Run
from helpers import tree_state
from kernel_ports import run_papermill

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
BROKEN = FIXTURES / "broken"
GOOD = FIXTURES / "good" / "lab-with-nvidia.toml"
CONFIG = "etc/containerd/config.toml"
SPEC = "etc/cdi/nvidia.yaml"
TOOLKIT = "root/toolkit"


def run_all(root: Path, mode: str = "apply", **params) -> dict[int, StepResult]:
    rb = Run(validate(root=str(root), mode=mode, **params)).start()
    try:
        results = rb.run_all()
    finally:
        rb.finish()
    return {r.step: r for r in results.values() if isinstance(r.step, int) and r.step <= 8}  # the lab's numbers


def lab_root(tmp_path: Path, config: bytes | None = None) -> Path:
    """A correct, complete root (apply mode on the good fixture), then `config` put in place as the student's."""
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_bytes(GOOD.read_bytes())
    results = run_all(root)
    assert not any(r.failed for r in results.values()), [r.text() for r in results.values() if r.failed]
    if config is not None:
        (root / CONFIG).write_bytes(config)
    return root


def broken(name: str) -> bytes:
    return (BROKEN / name).read_bytes()


def good_with(old: str, new: str) -> bytes:
    text = GOOD.read_text()
    assert old in text, old
    return text.replace(old, new, 1).encode()


def one_step(root: Path, step_id: str, **params) -> StepResult:
    """One step's result in a check run that planned every step first, as the notebook runs a step's cells."""
    rb = Run(validate(root=str(root), mode="check", **params)).start()
    try:
        rb.preflight()
        return rb.run(rb.step(step_id))
    finally:
        rb.finish()


def check(root: Path, **params) -> dict[int, StepResult]:
    return run_all(root, mode="check", **params)


def a_folder_in_its_place(path: Path) -> Path:
    """`mkdir` where the file should be (a student's slip): the file gone, a folder of its name there."""
    path.unlink(missing_ok=True)
    path.mkdir()
    return path


def written_by_hand(path: Path, text: str):
    """The fix a student makes by hand, to run later: whatever stands at ``path`` replaced by a file of ``text``."""
    def by_hand():
        path.rmdir() if path.is_dir() else path.unlink()
        path.write_text(text)
    return by_hand


def check_cell_run_twice(root: Path, step_id: str, fix_by_hand) -> tuple[list[str], StepResult]:
    """Check mode, one step's cells as the notebook runs them: the plan, the verdict; then the student fixes the
    file by hand and runs the check cell again (the plan is not made again). The first verdict's codes, and
    the second verdict."""
    rb = Run(validate(root=str(root), mode="check")).start()
    try:
        rb.preflight()
        step = rb.step(step_id)
        rb.commit(step)
        first = [p.code for p in rb.verdict(step).problems]
        fix_by_hand()
        return first, rb.verdict(step)
    finally:
        rb.finish()


def failed_steps(results: dict[int, StepResult]) -> list[int]:
    return [n for n, r in results.items() if r.failed]


def verdict(results: dict[int, StepResult], step: int, en: str) -> Problem:
    """The one verdict of a step whose code is `en`, or whose English text contains it (Korean too)."""
    hits = [p for p in results[step].problems if p.is_a(en) or en in p.what.en]
    assert hits, f"step {step}: no verdict with {en!r} in:\n{results[step].text()}"
    p = hits[0]
    assert p.what.ko and p.what.ko != p.what.en and p.fix and p.fix.ko and p.fix.en, p
    return p


def all_verdicts(results: dict[int, StepResult]) -> list[Problem]:
    return [p for r in results.values() for p in r.problems]


tree = tree_state  # one snapshot for every test that proves nothing changed


def papermill(root: Path, out: Path, *args: str) -> subprocess.CompletedProcess:
    """The user's own command on ``root``, one such run at a time across xdist's workers (tests/kernel_ports.py)."""
    return run_papermill([str(Path(sys.executable).parent / "papermill"), "--no-progress-bar", "--log-level", "ERROR",
                          str(REPO / "notebooks" / "run.ipynb"), str(out), "-p", "root", str(root), *args],
                         capture_output=True, text=True, timeout=300, cwd=REPO)


def step_records(executed: Path) -> dict:
    """The machine-readable step records the executed notebook shows (the last one per step wins)."""
    nb = json.loads(executed.read_text())
    records = {}
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            for summary_step in (read_record(data.get(SUMMARY_MIME)) or {}).get("steps", []):
                records[summary_step["step"]] = summary_step
            record = read_record(data.get(STEP_MIME))
            if record:
                records[record["step"]] = record
    return records


def errors(executed: Path) -> list[dict]:
    nb = json.loads(executed.read_text())
    return [o for c in nb["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
