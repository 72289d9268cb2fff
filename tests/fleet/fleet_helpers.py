"""Helpers for the fleet tests: run the real `runbook` program, find the stand-in notebook.

(A module name of its own: `from conftest import` would be ambiguous beside tests/real/conftest.py.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
STANDIN = HERE / "notebooks" / "standin.ipynb"


def runbook(*args: str, cwd: Path | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    """The command as a user runs it, in its own process (no in-process shortcuts)."""
    return subprocess.run([sys.executable, "-m", "runbook_lib.cli", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def run_dirs(archive: Path, label: str) -> list[Path]:
    return sorted(p for p in (archive / label).iterdir() if p.is_dir())


def manifest(run_dir: Path) -> dict:
    return json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))


