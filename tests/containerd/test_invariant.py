"""The promise "nothing else changes in containerd's reading" (runbook_lib/containerd/invariant.py), on dumps as
containerd writes them: the files it read (`imports`) are a set, whose order containerd 1.6 does not keep (it lists
them from a Go map: two dumps of the same config list them either way, and step 9 failed a good run about one run
in three on tests/real/test_real_wild_configs.py)."""

from __future__ import annotations

from runbook_lib.containerd.invariant import changed_beside

CRI = "io.containerd.grpc.v1.cri"


def _dump(imports: list[str], **runtimes) -> dict:
    return {"version": 2, "imports": imports,
            "plugins": {CRI: {"containerd": {"default_runtime_name": "runc",
                                             "runtimes": {"runc": {"runtime_type": "io.containerd.runc.v2"}, **runtimes}}}}}


MAIN, DROP = "/etc/containerd/config.toml", "/etc/containerd/conf.d/10-registry.toml"


def test_the_same_files_read_in_another_order_are_no_change():
    before = _dump([MAIN, DROP])
    after = _dump([DROP, MAIN], nvidia={"runtime_type": "io.containerd.runc.v2"})
    assert changed_beside(before, after, ("nvidia",)) == []


def test_a_file_read_that_was_not_before_is_a_change():
    before = _dump([MAIN])
    after = _dump([DROP, MAIN], nvidia={"runtime_type": "io.containerd.runc.v2"})
    assert changed_beside(before, after, ("nvidia",)) == ["imports"]
    assert changed_beside(before, after, ("nvidia",), imports=True) == []  # the drop-in layout adds its own
