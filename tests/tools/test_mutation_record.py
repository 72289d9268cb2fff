"""tools/mutation_record.py: `make mutate` goes on from the results kept in the repository, with the real mutmut.

A tiny project is judged once; its record is saved and mutants/ deleted (a new machine). Then one function
changes and the test that killed the other's mutant is weakened: restored, mutmut keeps the unchanged function's
result (judged again, its mutant would now survive) and judges the changed function's mutants afresh."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import mutation_record  # noqa: E402

MUTMUT = Path(sys.executable).with_name("mutmut")

pytestmark = pytest.mark.slow


def _project(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text('[tool.mutmut]\nsource_paths = ["pkg"]\n'
                                         'pytest_add_cli_args = ["-p", "no:cacheprovider", "-q"]\n')
    (root / "pkg/__init__.py").write_text("")
    (root / "pkg/m.py").write_text("def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n")
    (root / "tests/test_m.py").write_text("from pkg.m import add, sub\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
                                          "def test_sub():\n    assert sub(5, 3) == 2\n")
    return root


def _mutmut_run(root: Path) -> dict[str, int | None]:
    subprocess.run([str(MUTMUT), "run"], cwd=root, check=True, capture_output=True, timeout=300)
    return json.loads((root / "mutants/pkg/m.py.meta").read_text())["exit_code_by_key"]


def test_a_new_machine_keeps_the_records_results_for_unchanged_functions_and_judges_the_changed_again(tmp_path):
    root = _project(tmp_path / "p")
    record = tmp_path / "record.json"
    assert _mutmut_run(root) == {"pkg.m.x_add__mutmut_1": 1, "pkg.m.x_sub__mutmut_1": 1}
    assert mutation_record.save(root / "mutants", record) == 2
    shutil.rmtree(root / "mutants")  # a new machine: only the repository

    (root / "pkg/m.py").write_text((root / "pkg/m.py").read_text().replace("return a - b", "return -(b - a)"))
    (root / "tests/test_m.py").write_text((root / "tests/test_m.py").read_text().replace("== 5", "is not None"))
    assert mutation_record.restore(root / "mutants", record) == ["pkg/m.py"]
    after = _mutmut_run(root)
    assert after["pkg.m.x_add__mutmut_1"] == 1  # kept: add's hash is the one it was judged on
    assert {k: v for k, v in after.items() if "x_sub" in k} == {"pkg.m.x_sub__mutmut_1": 1, "pkg.m.x_sub__mutmut_2": 1}

    shutil.rmtree(root / "mutants")  # without the record, the weakened test lets add's mutant live: it was reused
    assert _mutmut_run(root)["pkg.m.x_add__mutmut_1"] == 0


def test_saving_keeps_the_records_result_for_a_mutant_not_judged_again_only_while_its_function_is_unchanged():
    """Otherwise the mutant is kept as not judged yet (None): the report read from the record counts it."""
    entry = {"hashes": {"x_f": "aa", "x_g": "bb"}, "results": {"m.x_f__mutmut_1": 1, "m.x_g__mutmut_1": 0}}
    notes = {"hash_by_function_name": {"x_f": "aa", "x_g": "cc"},
             "exit_code_by_key": {"m.x_f__mutmut_1": None, "m.x_g__mutmut_1": None, "m.x_g__mutmut_2": 1}}
    assert mutation_record.merged(entry, notes) == {"hashes": {"x_f": "aa", "x_g": "cc"},
                                                   "results": {"m.x_f__mutmut_1": 1, "m.x_g__mutmut_1": None,
                                                               "m.x_g__mutmut_2": 1}}


def test_restoring_leaves_a_module_mutmut_has_notes_of_as_it_is(tmp_path):
    mutants, record = tmp_path / "mutants", tmp_path / "record.json"
    record.write_text(json.dumps({"pkg/m.py": {"hashes": {"x_f": "aa"}, "results": {"pkg.m.x_f__mutmut_1": 1}}}))
    (mutants / "pkg").mkdir(parents=True)
    (mutants / "pkg/m.py.meta").write_text('{"exit_code_by_key": {}, "hash_by_function_name": {}}')
    assert mutation_record.restore(mutants, record) == []
    assert (mutants / "pkg/m.py.meta").read_text() == '{"exit_code_by_key": {}, "hash_by_function_name": {}}'


def test_a_save_while_mutmut_rewrites_a_meta_reads_it_once_it_is_whole(tmp_path):
    """mutmut rewrites a module's .meta in place after each result; a save during a run may open it half written."""
    mutants, record = tmp_path / "mutants", tmp_path / "record.json"
    (mutants / "pkg").mkdir(parents=True)
    whole = json.dumps({"exit_code_by_key": {"pkg.m.x_f__mutmut_1": 1}, "hash_by_function_name": {"x_f": "aa"}})
    meta = mutants / "pkg/m.py.meta"
    meta.write_text(whole[:20])
    finisher = threading.Timer(0.3, meta.write_text, [whole])
    finisher.start()
    try:
        assert mutation_record.save(mutants, record) == 1
    finally:
        finisher.join()
    assert json.loads(record.read_text()) == {"pkg/m.py": {"hashes": {"x_f": "aa"},
                                                           "results": {"pkg.m.x_f__mutmut_1": 1}}}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mutants", "record.json"]  # no partial file left


def test_a_survivor_explained_by_its_change_stays_explained_when_mutmut_numbers_it_anew(tmp_path):
    """docs/TESTING.md may name a survivor by its function and its change: that survives the renumbering that a
    grown function (or grown coverage) brings, where its mutant name would name another mutant, or none."""
    import mutation_report
    root = tmp_path / "p"
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text('[tool.mutmut]\nsource_paths = ["pkg"]\n'
                                         'pytest_add_cli_args = ["-p", "no:cacheprovider", "-q"]\n')
    (root / "pkg/__init__.py").write_text("")
    (root / "pkg/m.py").write_text("def g(a):\n    return a + 0\n")  # `a - 0`: the same, so its mutant survives
    (root / "tests/test_m.py").write_text("from pkg.m import g\n\n\ndef test_g():\n    assert g(2) == 2\n")
    record = tmp_path / "record.json"
    first = _mutmut_run(root)
    assert first == {"pkg.m.x_g__mutmut_1": 0, "pkg.m.x_g__mutmut_2": 1}
    mutation_record.save(root / "mutants", record)
    changes = mutation_record.load(record)["pkg/m.py"]["changes"]
    assert changes == {"pkg.m.x_g__mutmut_1": "return a + 0 → return a - 0"}
    doc = ("## Equivalent mutants\n\n- " + mutation_report.by_change("pkg.m.x_g__mutmut_1", changes["pkg.m.x_g__mutmut_1"])
           + ": adding and subtracting 0 are the same\n")
    assert doc.splitlines()[2].startswith("- `pkg.m.x_g`: `return a + 0` → `return a - 0`")
    found = {"pkg/m.py": first}
    assert mutation_report.unexplained(found, doc, changes) == []

    # the function grows a line before it: its mutants are numbered anew, the equivalent one is no longer number 1
    (root / "pkg/m.py").write_text("def g(a):\n    b = a * 1\n    return a + 0\n")
    shutil.rmtree(root / "mutants")
    again = _mutmut_run(root)
    moved = [name for name, code in again.items() if code == 0 and
             mutation_record.change_of((root / "mutants/pkg/m.py").read_text(), name) == "return a + 0 → return a - 0"]
    assert moved and moved != ["pkg.m.x_g__mutmut_1"]
    mutation_record.save(root / "mutants", record)
    now = mutation_record.load(record)["pkg/m.py"]["changes"]
    left = mutation_report.unexplained({"pkg/m.py": again}, doc, now)
    assert moved[0] not in left  # explained by its change, under its new number
    by_name = "## Equivalent mutants\n\n- `pkg.m.x_g__mutmut_1`: adding and subtracting 0 are the same\n"
    assert moved[0] in mutation_report.unexplained({"pkg/m.py": again}, by_name, now)  # by number it would be lost
