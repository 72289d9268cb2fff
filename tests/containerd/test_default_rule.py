"""A config without the key: whatever the runbook reports of a setting the config leaves out is containerd's
own default for it, never a parameter (issue 25: with no default_runtime_name in the config, default.txt said
DEFAULT=nvidia, the runtime_name parameter, while containerd's default is runc, and the whole suite passed
because every base config set the name).

Every layout the runbook knows (version 1, 2 and 3, the lab's config and containerd's own defaults), with the
key taken out, and runtime names that are not runc: default.txt says runc, the check of the result passes, and
tests/real/test_real_default_without_key.py asks containerd 1.6 itself which default it reads."""

from __future__ import annotations


import pytest

from layouts import CONFIGS, CONTAINERD_DEFAULT, KEY_LINE, make_root, run_steps, without_default_name
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run

def test_the_configs_really_lack_the_key():
    for name, path in CONFIGS.items():
        assert b"default_runtime_name" not in without_default_name(path), name
    assert sum(bool(KEY_LINE.search(p.read_bytes())) for p in CONFIGS.values()) == 3  # v1's never had one


@pytest.mark.parametrize("runtime_name", ["nvidia", "gpu-rt"])
@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_default_txt_says_containerds_default_not_the_parameter(tmp_path, config, runtime_name):
    root = make_root(tmp_path, without_default_name(CONFIGS[config]))
    rb = run_steps(root, runtime_name=runtime_name)
    assert rb.ok(), [r.text() for r in rb.failed_steps()]
    assert (root / "root/toolkit/default.txt").read_text() == f"DEFAULT={CONTAINERD_DEFAULT}\nWHY=runtimeclass\n"
    assert b"default_runtime_name" not in (root / "etc/containerd/config.toml").read_bytes()  # never added

    check = Run(validate(root=str(root), mode="check", runtime_name=runtime_name)).start()
    try:
        results = check.run_all()
    finally:
        check.finish()
    assert [r.step for r in results.values() if r.failed] == []
    assert len([r for r in results.values() if isinstance(r.step, int) and r.step <= 8]) == 8  # every lab step judged
