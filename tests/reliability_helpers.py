"""Shared by the reliability tests (bad input, paths, crashes, concurrency, failed-run evidence).

The runbook is driven exactly as the notebook drives it: act, confirm, and in apply mode stop at the first
failed step. Snapshots record every file (bytes, mode, mtime) and every symbolic link under a folder, so a test
can say precisely what changed.
"""
from __future__ import annotations

import re
import shutil
import sys
import tomllib
from importlib import resources
from pathlib import Path

from runbook_lib.engine.params import validate
from runbook_lib.engine.result import FAILED, SKIPPED, UNCHANGED, StepResult
from runbook_lib.engine.run import Run
from runbook_lib.steps import STEPS

sys.path.insert(0, str(Path(__file__).resolve().parent / "real"))
import realenv  # noqa: E402  (the one skip-or-fail switch for real programs)
from helpers import tree_state

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK = REPO / "notebooks" / "run.ipynb"
PAPERMILL = REPO / ".venv" / "bin" / "papermill"
BASE = (resources.files("runbook_lib") / "data" / "config.toml.base").read_bytes()
CONFIG = "etc/containerd/config.toml"
CDI = "etc/cdi/nvidia.yaml"
TOOLKIT = "root/toolkit"
TOOLKIT_FILES = ("default.txt", "parsed.txt", "cdi-keys.txt", "runtimeclass.yaml", "report.txt")
HANGUL = re.compile(r"[\uac00-\ud7a3]")


def make_root(tmp_path: Path, config: bytes | None = None, name: str = "root") -> Path:
    root = tmp_path / name
    (root / "etc" / "containerd").mkdir(parents=True)
    if config is not None:
        (root / CONFIG).write_bytes(config)
    return root


def run_apply(root: Path | str, **params) -> list[StepResult]:
    """Every step in apply mode, stopping at the first failed step as the notebook does."""
    rb = Run(validate(root=str(root), **params))
    rb.start()
    results = []
    try:
        rb.preflight()
        for step in rb.steps:
            if not isinstance(step.NUMBER, int):
                continue
            result = rb.run(step)
            results.append(result)
            if result.status == FAILED:
                break
    finally:
        rb.finish()
    return results


def statuses(results: list[StepResult]) -> list[str]:
    return [r.status for r in results]


def settled(results: list[StepResult]) -> bool:
    """A run that found nothing to do: every step unchanged (or skipped, as step 9 is without containerd_bin)."""
    return len(results) == sum(isinstance(s.NUMBER, int) for s in STEPS) and all(r.status in (UNCHANGED, SKIPPED) for r in results)


snapshot = tree_state  # one snapshot for every test that proves nothing changed


def backups(folder: Path, name: str) -> list[Path]:
    return sorted(folder.glob(f"{name}.runbook-backup-*"))


def assert_bilingual(text: str) -> None:
    assert HANGUL.search(text), f"no Korean in: {text!r}"
    assert re.search(r"[A-Za-z]{4,} [a-z]{2,}", HANGUL.sub("", text)), f"no English sentence in: {text!r}"


def assert_failed_clearly(results: list[StepResult], step: int, *needles: str) -> StepResult:
    """The run stopped at `step`, which failed with a bilingual message naming what is wrong and how to fix it."""
    assert results[-1].step == step and results[-1].status == FAILED, [(r.step, r.status) for r in results]
    assert all(r.status != FAILED for r in results[:-1])
    failed = results[-1]
    assert failed.problems, "a failed step must say what is wrong"
    prob = failed.problems[0]
    assert_bilingual(prob.what.ko + " " + prob.what.en)
    assert prob.fix is not None, "a failed step must say how to fix it"
    assert prob.fix.ko and prob.fix.en and not HANGUL.search(prob.fix.en)  # a fix may be a literal line
    assert not HANGUL.search(prob.what.en)
    text = failed.text()
    for needle in needles:
        assert needle in text, f"{needle!r} not in:\n{text}"
    return failed


def parse_config(root: Path) -> dict:
    return tomllib.loads((root / CONFIG).read_bytes().decode("utf-8").lstrip("\ufeff"))


def runtimes(data: dict) -> dict:
    return data["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]


def report(root: Path) -> dict[str, str]:
    text = (root / TOOLKIT / "report.txt").read_text()
    return dict(line.split("=", 1) for line in text.splitlines())


def containerd_reads(root: Path, runtime_name: str = "nvidia", config: str = CONFIG) -> dict:
    """Ask the real containerd 1.6 how it reads the config under `root` (skip, or fail with RUNBOOK_REQUIRE_REAL=1)."""
    from runbook_lib.containerd.verify import containerd_reading

    binary = realenv.need_program("containerd")
    realenv.need_root()
    if shutil.which("unshare") is None:
        realenv.missing("unshare (util-linux) 가 없습니다 / unshare (util-linux) is missing")
    return containerd_reading(binary, root / config, root, runtime_name)


def assert_containerd_registered(root: Path, runtime_name: str = "nvidia", *, systemd_cgroup: bool = True,
                                 binary: str = "/usr/bin/nvidia-container-runtime") -> dict:
    seen = containerd_reads(root, runtime_name)
    table = seen["runtime"]
    assert table is not None, f"containerd does not see runtimes.{runtime_name}: {seen['runtime_names']}"
    assert table["runtime_type"] == "io.containerd.runc.v2"
    assert table["options"]["BinaryName"] == binary
    assert table["options"]["SystemdCgroup"] is systemd_cgroup
    assert seen["default_runtime_name"] == "runc"
    return seen
