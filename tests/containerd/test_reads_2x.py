"""runbook_lib/containerd/reads_2x.py in process, beside tests/real/test_real_2x_layouts.py (which asks every
pinned containerd 2.x how it reads these layouts): a version-3 file that holds version 2's runtime tables, and a
version-2 file with runtimes under both names, are refused before any write, at the header containerd's readings
part at, in apply and check alike; the layouts every release reads the same are not (issue 44: only tests/real
held this rule)."""
from __future__ import annotations

import pytest

from helpers import finished_run, tree_state

CONFIG = "etc/containerd/config.toml"
from runtime_tables import V2, V3
from runtime_tables import runtime_table as _runtime


def _root(tmp_path, text: str):
    root = tmp_path / "root"
    (root / CONFIG).parent.mkdir(parents=True)
    (root / CONFIG).write_text(text)
    return root


def _outside_the_lock(state: dict) -> dict:
    return {k: v for k, v in state.items() if not k.startswith("run")}


REFUSED = {
    # version 3, runtimes only under version 2's name: 2.3+ migrates them only while no 2.x runtime is there
    "v3-holds-v2-tables": ("version = 3\n" + _runtime("runc", V2, SystemdCgroup=True),
                           "config.v3_holds_v2_tables", 2, ("runc",)),
    # version 2, runtimes under both names: 1.x reads one set, 2.x the other
    "v2-holds-both-names": ("version = 2\n" + _runtime("runc", V2, SystemdCgroup=True)
                            + _runtime("crun", V3, SystemdCgroup=True),
                            "config.v2_holds_both_names", 6, ("runc", "crun")),
}


@pytest.mark.parametrize("name", list(REFUSED))
@pytest.mark.parametrize("mode", ["apply", "check"])
def test_a_layout_two_releases_read_apart_is_refused_before_any_write_at_its_header(tmp_path, name, mode):
    text, code, line, runtimes = REFUSED[name]
    root = _root(tmp_path, text)
    before = tree_state(root)
    rb = finished_run(root, mode=mode)
    problems = [p for r in rb.results.values() for p in r.problems if p.code == code]
    assert [(p.path, p.line) for p in problems] == [("/" + CONFIG, line)]
    assert all(r in problems[0].what.en and r in problems[0].what.ko for r in runtimes), problems[0].what.en
    if mode == "apply":
        assert [p.code for _, p in rb.refusals()] == [code]
    assert _outside_the_lock(tree_state(root)) == _outside_the_lock(before), "nothing was written"


@pytest.mark.parametrize("text", [
    "version = 3\n" + _runtime("runc", V3, SystemdCgroup=True),  # containerd 2.x's own layout
    "version = 3\n" + _runtime("runc", V2, SystemdCgroup=True) + _runtime("crun", V3),  # migration already off
    "version = 2\n" + _runtime("runc", V3, SystemdCgroup=True),  # AKS: version 2 with 2.x names only
    "version = 2\n" + _runtime("runc", V2, SystemdCgroup=True),  # containerd 1.x's own layout
], ids=["v3", "v3-both", "v2-2x-names", "v2"])
def test_a_layout_every_release_reads_alike_is_not_refused_by_these_rules(tmp_path, text):
    rb = finished_run(_root(tmp_path, text), mode="check")
    codes = [p.code for r in rb.results.values() for p in r.problems]
    assert "config.v3_holds_v2_tables" not in codes and "config.v2_holds_both_names" not in codes, codes
