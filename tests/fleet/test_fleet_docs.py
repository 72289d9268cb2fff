"""docs/FLEET.md's one command and paths are the ones the code really uses."""

from __future__ import annotations

import re

from fleet_helpers import REPO


def test_the_documented_command_exists_and_matches_its_defaults():
    doc = (REPO / "docs" / "FLEET.md").read_text(encoding="utf-8")
    assert "make venv && .venv/bin/python tests/fleet/fleet.py" in doc
    assert re.search(r"^venv:", (REPO / "Makefile").read_text(), re.M)
    fleet = (REPO / "tests" / "fleet" / "fleet.py").read_text()
    assert 'default="/tmp/runbook-fleet"' in fleet and "/tmp/runbook-fleet/archive" in doc
    defaults = (REPO / "deploy/ansible/roles/runbook/defaults/main.yml").read_text()
    for var in re.findall(r"^\| `(runbook_\w+)`", doc, re.M):
        assert re.search(rf"^{var}:", defaults, re.M), var
