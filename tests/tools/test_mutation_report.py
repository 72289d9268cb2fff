"""docs/TESTING.md and the mutation record kept in the repository agree (issue 25): the record's run judged every
mutant, each survivor is named with why it is equivalent under "## Equivalent mutants", and the score table of the
last full run is the record's own. `make mutate` checks the same on the machine that ran it; this checks what a
clone holds, so an explanation deleted or a record saved without updating the page fails `make test`."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import mutation_record  # noqa: E402
import mutation_report  # noqa: E402

DOC = mutation_report.DOC.read_text(encoding="utf-8")


def _recorded() -> dict[str, dict[str, int | None]]:
    return {module: entry["results"] for module, entry in mutation_record.load().items()}


def test_the_committed_record_judged_every_mutant_of_the_modules_that_decide_verdicts_and_writes():
    found = _recorded()
    assert sorted(found) == sorted(str(p) for p in _mutated_modules()), "a module of only_mutate has no record"
    assert mutation_report.unchecked(found) == []


def test_every_survivor_of_the_committed_record_is_explained_under_equivalent_mutants():
    found = _recorded()
    assert len(mutation_report.survivors(found)) > 0  # the check below reads real survivors, not an empty list
    assert mutation_report.unexplained(found, DOC, mutation_report.changes()) == []


def test_the_score_table_in_testing_md_is_the_committed_records():
    assert mutation_report.table(_recorded()) in DOC


def test_a_survivor_named_only_above_equivalent_mutants_is_not_explained():
    found = {"m.py": {"m.x_f__mutmut_1": 0, "m.x_f__mutmut_2": 1, "m.x_g__mutmut_1": 0, "m.x_h__mutmut_1": None}}
    doc = "killed by a test: `m.x_g__mutmut_1`\n\n## Equivalent mutants\n\n- `m.x_f__mutmut_1`: why\n"
    assert mutation_report.unexplained(found, doc) == ["m.x_g__mutmut_1"]
    assert mutation_report.unchecked(found) == ["m.x_h__mutmut_1"]


def _mutated_modules() -> list[Path]:
    """The files [tool.mutmut] only_mutate names (globs) and do_not_mutate leaves out, that have a function to
    mutate."""
    import tomllib

    root = mutation_report.ROOT
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["mutmut"]
    files = {p.relative_to(root) for g in config["only_mutate"] for p in root.glob(g) if p.suffix == ".py"}
    files -= {p.relative_to(root) for g in config.get("do_not_mutate", []) for p in root.glob(g)}
    return sorted(f for f in files if "def " in (root / f).read_text())
