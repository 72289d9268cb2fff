"""A kernel's exit does not collect the heap it leaves (runbook_lib/notebook/session.py: freeze_at_exit): the
validation cell registers gc.freeze with atexit once a kernel, and never in a shell that is no kernel."""

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
    assert registered == [gc.freeze]


def test_a_shell_without_a_kernel_registers_nothing(registered):
    assert session.freeze_at_exit(StandIn()) is False
    assert session.freeze_at_exit(None) is False
    assert registered == []
