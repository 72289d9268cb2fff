"""A kernel's exit collects the heap it leaves once (runbook_lib/notebook/session.py: freeze_at_exit): the validation
cell registers a collection then gc.freeze with atexit once a kernel, and never in a shell that is no kernel."""

from __future__ import annotations

import atexit
import gc

import pytest

from runbook_lib.notebook import session


class KernelShell:
    kernel = object()  # what ipykernel's shell has and a grading worker's stand-in has not


class StandIn:
    runs_notebook_cells = True


@pytest.fixture()
def registered(monkeypatch):
    calls = []
    monkeypatch.setattr(atexit, "register", lambda fn, *a, **k: calls.append(fn))
    monkeypatch.setattr(session.SESSION, "exit_frozen", False)
    return calls


def test_a_kernel_freezes_its_heap_at_exit_once(registered):
    assert session.freeze_at_exit(KernelShell()) is True
    assert session.freeze_at_exit(KernelShell()) is False  # the validation cell run again: still once
    assert registered == [session._collect_then_freeze]


def test_a_shell_without_a_kernel_registers_nothing(registered):
    assert session.freeze_at_exit(StandIn()) is False
    assert session.freeze_at_exit(None) is False
    assert registered == []


def test_the_exit_collects_the_garbage_before_it_freezes_the_rest():
    class Cycle:
        finalized = []

        def __del__(self):
            Cycle.finalized.append(True)

    garbage = Cycle()
    garbage.me = garbage  # only a collection finalizes it
    del garbage
    frozen_before = gc.get_freeze_count()
    try:
        session._collect_then_freeze()
        assert Cycle.finalized == [True]
        assert gc.get_freeze_count() > frozen_before
    finally:
        gc.unfreeze()
