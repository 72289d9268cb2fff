"""A config without default_runtime_name, read by the real containerd 1.6: the default it reads is the one
default.txt names (tests/containerd/test_default_rule.py has the same roots without containerd). Version 3 is
left out: containerd 1.6 does not know it."""

from __future__ import annotations

import pytest

import realenv
from layouts import CONFIGS, make_root, run_steps, without_default_name
from runbook_lib.containerd.verify import containerd_reading

pytestmark = pytest.mark.real
READ_BY_1_6 = sorted(name for name in CONFIGS if "version 3" not in name)


@pytest.mark.parametrize("config", READ_BY_1_6)
def test_default_txt_names_the_default_containerd_reads(tmp_path, config):
    binary = realenv.need_program("containerd")
    root = make_root(tmp_path, without_default_name(CONFIGS[config]))
    rb = run_steps(root, runtime_name="gpu-rt")
    assert rb.ok(), [r.text() for r in rb.failed_steps()]
    said = dict(line.split("=", 1) for line in (root / "root/toolkit/default.txt").read_text().splitlines())
    got = containerd_reading(binary, root / "etc/containerd/config.toml", root, "gpu-rt")
    assert got["default_runtime_name"] == said["DEFAULT"] == "runc", got
    assert "gpu-rt" in got["runtime_names"], got
