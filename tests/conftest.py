import sys
from pathlib import Path

# tests import their helpers as a plain module
sys.path.insert(0, str(Path(__file__).resolve().parent))

# `make mutate`: a mutant's likely killers run first (tests/mutation_order.py); nothing happens outside a mutant
from mutation_order import pytest_collection_modifyitems, pytest_runtest_logreport  # noqa: E402,F401
