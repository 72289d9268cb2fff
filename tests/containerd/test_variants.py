"""GPU Operator-style variants: nvidia-cdi and nvidia-legacy next to nvidia, each its own runtime, planned
one after the other in place and read by containerd 1.6."""

import tomllib

from distro_helpers import NVIDIA, WANTED, containerd_reads, plan_inplace, write_root
from layouts import fixture
from runbook_lib.containerd.variants import runtime_variants


def test_variant_names_and_binaries():
    assert [(v.name, v.binary) for v in runtime_variants(WANTED)] == [
        ("nvidia-cdi", NVIDIA + ".cdi"), ("nvidia-legacy", NVIDIA + ".legacy")]


def test_all_three_registered_and_read_by_containerd(tmp_path):
    text = fixture("containerd-1.6.20-default.toml").read_text()
    for wanted in [WANTED, *runtime_variants(WANTED)]:
        text = plan_inplace(text, wanted).text
    assert plan_inplace(text, runtime_variants(WANTED)[1]).text == text  # idempotent
    root = write_root(tmp_path, {"etc/containerd/config.toml": text})
    for wanted in [WANTED, *runtime_variants(WANTED)]:
        seen = containerd_reads(root, runtime=wanted.name)
        assert seen["runtime"]["options"]["BinaryName"] == wanted.binary
    assert set(seen["runtime_names"]) == {"runc", "nvidia", "nvidia-cdi", "nvidia-legacy"}
    assert tomllib.loads(text)["version"] == 2
