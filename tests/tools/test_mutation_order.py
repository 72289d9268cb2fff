"""The order `make mutate` runs a mutant's tests in (tests/mutation_order.py): the tests that killed the same
function's mutants first, the most frequent first, then those that killed the module's, then mutmut's order."""

from __future__ import annotations

from mutation_order import function_of, mutant_under_test, note_killer, order, read_killers

GIVEN = ["t.py::fast", "t.py::middle", "u.py::slow_pod", "u.py::slow_ask", "v.py::slowest"]
POD = "runbook_lib.steps.pod.x_message__mutmut_7"


def test_without_killers_the_order_is_mutmuts():
    assert order(GIVEN, POD, []) == GIVEN


def test_the_functions_killers_come_first_then_the_modules_then_the_rest():
    killers = [("runbook_lib.steps.pod.x_attempt", "v.py::slowest"),
               ("runbook_lib.steps.pod.x_message", "u.py::slow_ask"),
               ("runbook_lib.steps.pod.x_message", "u.py::slow_pod"),
               ("runbook_lib.steps.pod.x_message", "u.py::slow_pod"),
               ("runbook_lib.steps.cdi.x_plan", "t.py::middle")]  # another module's: no rank
    assert order(GIVEN, POD, killers) == ["u.py::slow_pod", "u.py::slow_ask", "v.py::slowest", "t.py::fast",
                                          "t.py::middle"]


def test_a_killer_not_among_the_mutants_tests_is_not_added():
    assert order(GIVEN[:2], POD, [("runbook_lib.steps.pod.x_message", "u.py::slow_pod")]) == GIVEN[:2]


def test_a_method_mutants_function_is_its_class_and_name():
    assert function_of("runbook_lib.engine.run.xǁRunǁcommit__mutmut_12") == "runbook_lib.engine.run.xǁRunǁcommit"


def test_killers_noted_are_read_back_in_the_order_noted(tmp_path):
    path = tmp_path / "killers.tsv"
    assert read_killers(path) == []
    note_killer(POD, "u.py::slow_pod[a\tb]", path)
    note_killer("runbook_lib.steps.cdi.x_plan__mutmut_1", "t.py::middle", path)
    assert read_killers(path) == [("runbook_lib.steps.pod.x_message", "u.py::slow_pod[a\tb]"),
                                  ("runbook_lib.steps.cdi.x_plan", "t.py::middle")]


def test_only_a_mutants_name_turns_the_order_on(monkeypatch):
    for name in ("", "stats", "fail", "list_all_tests"):  # mutmut's own runs
        monkeypatch.setenv("MUTANT_UNDER_TEST", name)
        assert mutant_under_test() is None
    monkeypatch.delenv("MUTANT_UNDER_TEST")
    assert mutant_under_test() is None
    monkeypatch.setenv("MUTANT_UNDER_TEST", POD)
    assert mutant_under_test() == POD
