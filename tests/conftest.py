import os

import pytest
import sys
from pathlib import Path

# tests import their helpers as a plain module
sys.path.insert(0, str(Path(__file__).resolve().parent))

# `make mutate`: a mutant's likely killers run first (tests/mutation_order.py); nothing happens outside a mutant
import kernel_ports  # noqa: E402
import mutation_order  # noqa: E402
import xdist_groups  # noqa: E402
from mutation_order import pytest_runtest_logreport  # noqa: E402,F401


def pytest_collection_modifyitems(config, items):
    if getattr(config.option, "loadgroup", False):  # an xdist worker of `--dist loadgroup` (make test)
        xdist_groups.longest_first(items)
    mutation_order.pytest_collection_modifyitems(items)


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which would give its LoadGroupScheduling
def pytest_xdist_make_scheduler(config, log):
    """make test's workers (`--dist loadgroup`): a file per group (tests/xdist_groups.py)."""
    if config.getvalue("dist") == "loadgroup":
        return xdist_groups.FileGroups(config, log)
    return None


@pytest.fixture(autouse=True, scope="session")
def _papermill_lock_folder(tmp_path_factory):
    """Where plain papermill's lock is (tests/kernel_ports.py): under xdist the folder of the run that every
    worker's basetemp is in, so that one papermill subprocess starts its kernel at a time across the workers."""
    base = tmp_path_factory.getbasetemp()
    kernel_ports.LOCK_FOLDER = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    yield
    kernel_ports.LOCK_FOLDER = None


@pytest.fixture(autouse=True)
def _environment_as_it_was():
    """The CLI's entry points set variables for the kernels they start (RUNBOOK_TERMINAL_SUMMARY=0 among them) and
    end with their process; called in process by a test they would reach the next test's plain papermill."""
    saved = dict(os.environ)
    yield
    if os.environ != saved:
        os.environ.clear()
        os.environ.update(saved)
