"""`make mutate` only: the tests that killed a function's earlier mutants run first for its next ones.

mutmut runs a mutant's tests fastest first and stops at the first failure. A function whose mutants only a slow
test notices (step 9's and the pod's messages, asked of containerd 1.6: the slowest tests of the selection) had
each of its mutants run about 300 tests, 30-40 s, before the one that kills it. So each test that fails under a
mutant is noted (``mutmut-killers.tsv`` beside mutmut's own records: the function, the test), and the next mutant
runs the tests that killed its function's mutants first, then those that killed its module's, then the rest in
mutmut's order. Only the order changes: a surviving mutant still runs every one of its tests.

Outside a mutant (every other pytest run, mutmut's own coverage and clean runs) nothing is read or written.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

# mutmut runs the tests from its copy under mutants/: this file is mutants/tests/mutation_order.py there
KILLERS = Path(__file__).resolve().parent.parent / "mutmut-killers.tsv"


def mutant_under_test() -> str | None:
    name = os.environ.get("MUTANT_UNDER_TEST", "")
    return name if "__mutmut_" in name else None


def function_of(mutant: str) -> str:
    return mutant.rsplit("__mutmut_", 1)[0]


def module_of(function: str) -> str:
    return function.rsplit(".", 1)[0]


def read_killers(path: Path = KILLERS) -> list[tuple[str, str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return [tuple(line.split("\t", 1)) for line in text.splitlines() if "\t" in line]


def order(nodeids: list[str], mutant: str, killers: list[tuple[str, str]]) -> list[str]:
    """``nodeids`` with the function's killers first (the most frequent first), then the module's, then the
    rest, each group in the order given."""
    function = function_of(mutant)
    of_function = Counter(test for f, test in killers if f == function)
    of_module = Counter(test for f, test in killers if module_of(f) == module_of(function))
    given = {nodeid: i for i, nodeid in enumerate(nodeids)}

    def rank(nodeid: str):
        if nodeid in of_function:
            return 0, -of_function[nodeid], given[nodeid]
        if nodeid in of_module:
            return 1, -of_module[nodeid], given[nodeid]
        return 2, 0, given[nodeid]

    return sorted(nodeids, key=rank)


def note_killer(mutant: str, nodeid: str, path: Path = KILLERS) -> None:
    # one short line appended: the two workers' lines do not mix
    with open(path, "a", encoding="utf-8") as out:
        out.write(f"{function_of(mutant)}\t{nodeid}\n")


@pytest.hookimpl(trylast=True)  # after pytest's own reordering by fixtures
def pytest_collection_modifyitems(items):
    mutant = mutant_under_test()
    if mutant is None:
        return
    by_id = {item.nodeid: item for item in items}
    items[:] = [by_id[nodeid] for nodeid in order(list(by_id), mutant, read_killers())]


def pytest_runtest_logreport(report):
    mutant = mutant_under_test()
    if mutant is not None and report.failed:
        note_killer(mutant, report.nodeid)
