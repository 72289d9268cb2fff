"""Fixtures for the fleet tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def lab_root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    root.mkdir()
    return root
