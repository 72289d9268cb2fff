"""`make mutate`'s test selection ([tool.mutmut] pytest_add_cli_args_test_selection in pyproject.toml) names
tests that are there: every file exists and every `file::test` is a test of that file. mutmut passes the list
to pytest as it is, so a path left behind by a move would stop the run (or, as a node id, select nothing)."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def selection() -> list[str]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    args = config["tool"]["mutmut"]["pytest_add_cli_args_test_selection"]
    return [a for a in args if a.startswith("tests/")]


def top_level_tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def test_every_file_and_test_of_the_selection_exists():
    chosen = selection()
    assert len(chosen) > 40  # the list was read, not an empty one
    missing = [a for a in chosen if not (REPO / a.split("::")[0]).is_file()]
    assert missing == []
    absent = [a for a in chosen if "::" in a and a.split("::")[1].split("[")[0]
              not in top_level_tests(REPO / a.split("::")[0])]
    assert absent == []


def test_the_selection_names_each_file_once():
    files = [a for a in selection() if "::" not in a]
    assert sorted(set(files)) == sorted(files)


def test_every_test_path_the_makefile_names_exists():
    named = re.findall(r"tests/[\w/]+\.py", (REPO / "Makefile").read_text(encoding="utf-8"))
    assert named and [p for p in named if not (REPO / p).is_file()] == []
