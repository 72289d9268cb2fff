"""`default_runtime = "runc"` where `default_runtime_name` was meant: a student's mistake that each real
containerd reads its own way, and the runbook's step 4 as they do. In a version-2 file, containerd 1.6 cannot
decode a string into the deprecated `default_runtime` table and rejects the config at that line; containerd 2.x
migrates the file, drops the key with a warning and keeps runc as the default. The runbook fails step 4 at that
line with the line to write (1.6 is among the versions that read a version-2 file), and writes nothing."""

from __future__ import annotations

import re

import pytest

from paths import GOOD_CONFIG
from runbook_lib.containerd.verify import ContainerdRejected, containerd_reading
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run

CONFIG = "/etc/containerd/config.toml"
RIGHT = 'default_runtime_name = "runc"'
WRONG = 'default_runtime = "runc"'


def files(root):
    """Every file under the root but apply's lock (run/lock, a tmpfs on a node: the one file a refused apply leaves)."""
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and p.parent != root / "run/lock"}


def root_with_the_mistake(tmp_path):
    root = tmp_path / "root"
    config = root / CONFIG.lstrip("/")
    config.parent.mkdir(parents=True)
    text = GOOD_CONFIG.read_text()
    assert RIGHT in text
    config.write_text(text.replace(RIGHT, WRONG, 1))
    line = text[: text.index(RIGHT)].count("\n") + 1
    return root, config, line


def test_containerd_1_6_rejects_it_at_its_line(containerd, tmp_path):
    root, config, line = root_with_the_mistake(tmp_path)
    with pytest.raises(ContainerdRejected) as caught:
        containerd_reading(containerd, config, root, "nvidia")
    said = caught.value.said
    assert re.search(rf"\({line}, \d+\): Can't convert runc\(string\) to config\.Runtime", said), said


def test_containerd_2x_drops_it_and_keeps_runc(containerd2, tmp_path):
    root, config, _ = root_with_the_mistake(tmp_path)
    got = containerd_reading(containerd2, config, root, "nvidia")
    assert got["default_runtime_name"] == "runc"


def test_step_4_fails_at_that_line_with_the_line_to_write_and_writes_nothing(tmp_path):
    root, config, line = root_with_the_mistake(tmp_path)
    before = files(root)
    for mode in ("check", "apply"):
        rb = Run(validate(root=str(root), mode=mode)).start()
        try:
            if mode == "check":
                results = {r.step: r for r in rb.run_all().values()}
                (problem,) = [p for p in results[4].problems if p.is_error and p.path == CONFIG]
            else:
                rb.preflight()
                (problem,) = [p for _, p in rb.refusals()]  # refused in the plan, before any write
        finally:
            rb.finish()
        assert (problem.code, problem.path, problem.line) == ("default.legacy_not_a_table", CONFIG, line)
        assert problem.fix.en == f"write that line as: {RIGHT}"
        assert "rejects" in problem.what.en and "CRI" in problem.what.ko
    assert files(root) == before


def test_in_a_version_3_file_2x_drops_it_and_so_does_step_4(containerd2, tmp_path):
    """Version 3 has no default_runtime key: containerd 2.x drops it with a warning, the default stays the one
    default_runtime_name gives, and step 4 judges that default, not the dropped key."""
    root = tmp_path / "root"
    config = root / CONFIG.lstrip("/")
    config.parent.mkdir(parents=True)
    text = (GOOD_CONFIG.parents[1] / "containerd" / "containerd-2.0-docs-config-v3.toml").read_text()
    named = "      default_runtime_name = 'runc'\n"
    assert named in text
    config.write_text(text.replace(named, named + "      default_runtime = 'runc'\n", 1))
    assert containerd_reading(containerd2, config, root, "nvidia")["default_runtime_name"] == "runc"
    rb = Run(validate(root=str(root), mode="check")).start()
    try:
        results = {r.step: r for r in rb.run_all().values()}
    finally:
        rb.finish()
    assert "default.legacy_not_a_table" not in [p.code for p in results[4].problems]
