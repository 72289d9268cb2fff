"""`make mutate` forgets every stale copy under mutants/ before mutmut 3.8 measures coverage on it."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "mutants_forget_changed.py"


@pytest.fixture
def tool(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("mutants_forget_changed", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "ROOT", tmp_path)
    monkeypatch.setattr(module, "MUTANTS", tmp_path / "mutants")
    return module


def _write(path: Path, text: str, mtime: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def test_each_kind_of_stale_copy_goes_and_every_current_copy_stays(tool, tmp_path):
    m = tmp_path / "mutants"
    # a mutated module whose source is newer than its copy: the copy and its line spans go, its results stay
    # (mutmut keeps those of the functions whose hash is unchanged)
    _write(tmp_path / "pkg/mutated.py", "new\n", mtime=2000)
    _write(m / "pkg/mutated.py", "old, mutated\n", mtime=1000)
    _write(m / "pkg/mutated.py.meta", "{}")
    _write(m / "pkg/mutated.py.spans", "[]")
    # a mutated module not changed since: stays, though its text differs from the source (it is mutated)
    _write(tmp_path / "pkg/kept.py", "source\n", mtime=1000)
    _write(m / "pkg/kept.py", "mutated text\n", mtime=2000)
    _write(m / "pkg/kept.py.meta", "{}")
    # a module that is not mutated, changed: goes, whatever the times say
    _write(tmp_path / "pkg/plain.py", "def new(): ...\n", mtime=1000)
    _write(m / "pkg/plain.py", "def old(): ...\n", mtime=3000)
    # the same, unchanged: stays
    _write(tmp_path / "pkg/same.py", "same\n")
    _write(m / "pkg/same.py", "same\n")
    # a test whose source is gone: goes
    _write(m / "tests/test_removed.py", "def test(): ...\n")
    # mutmut's own files and caches are not copies: they stay
    _write(m / "mutmut-stats.json", "{}")
    _write(m / "mutmut-killers.tsv", "pkg.mutated.x_f\ttests/test_a.py::test\n")  # tests/mutation_order.py's
    _write(m / "pkg/__pycache__/plain.cpython-311.pyc", "x")

    forgotten = tool.forget_changed()

    assert forgotten == ["pkg/mutated.py", "pkg/plain.py", "tests/test_removed.py"]
    left = sorted(str(p.relative_to(m)) for p in m.rglob("*") if p.is_file())
    assert left == ["mutmut-killers.tsv", "mutmut-stats.json", "pkg/__pycache__/plain.cpython-311.pyc", "pkg/kept.py",
                    "pkg/kept.py.meta", "pkg/mutated.py.meta", "pkg/same.py"]


def test_no_mutants_folder_yet_forgets_nothing(tool):
    assert tool.forget_changed() == []
