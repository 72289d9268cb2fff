"""Other vendors' CDI specs in the spec folders (issue 25: a spec of kind amd.com/gpu with a device `all` beside
ours was counted as a conflict, and step 6 failed a good node; no test had a second vendor's spec).

The CDI registry keys a device by kind and name (amd.com/gpu=all is not nvidia.com/gpu=all), so a spec of another
kind is never a conflict, whatever its device names, file suffix or folder; nor is it taken for ours when ours
is missing. Only a spec of our kind that defines one of our devices is (tests/cdi/test_student_cdi.py), and podman
agrees (tests/real/test_real_podman_cdi.py)."""

from __future__ import annotations

import pytest

from grading_helpers import GOOD, SPEC, check, failed_steps, lab_root, run_all, tree, verdict
from helpers import other_spec

KINDS = ["amd.com/gpu", "intel.com/gpu", "habana.ai/gaudi", "xilinx.com/fpga", "example.com/nvidia"]
FOLDERS = ["etc/cdi", "var/run/cdi"]


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
@pytest.mark.parametrize("folder", FOLDERS)
@pytest.mark.parametrize("kind", KINDS)
def test_a_finished_lab_with_another_vendors_spec_passes(tmp_path, kind, folder, suffix):
    root = lab_root(tmp_path)
    other = root / folder / f"{kind.replace('/', '-')}{suffix}"
    other.parent.mkdir(parents=True, exist_ok=True)
    other.write_text(other_spec(kind))
    before = tree(root)
    results = check(root)
    assert failed_steps(results) == [], [r.text() for r in results.values() if r.failed]
    assert tree(root) == before


@pytest.mark.parametrize("kind", KINDS)
def test_a_run_beside_another_vendors_spec_writes_ours_and_leaves_theirs(tmp_path, kind):
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / "etc/containerd/config.toml").write_bytes(GOOD.read_bytes())
    (root / "etc/cdi").mkdir(parents=True)
    (root / "etc/cdi/other.yaml").write_text(other_spec(kind))
    results = run_all(root)
    assert failed_steps(results) == [], [r.text() for r in results.values() if r.failed]
    assert "kind: nvidia.com/gpu" in (root / SPEC).read_text()  # ours written: theirs is not taken for ours
    assert (root / "etc/cdi/other.yaml").read_text() == other_spec(kind)


def test_our_kind_with_one_of_our_devices_is_still_a_conflict(tmp_path):
    """The rule's other half, beside the vendors above: the same kind and a device of ours."""
    root = lab_root(tmp_path)
    (root / "etc/cdi/amd.yaml").write_text(other_spec("amd.com/gpu"))
    (root / "etc/cdi/nvidia-extra.yaml").write_text(other_spec("nvidia.com/gpu", devices=("all",)))
    results = check(root)
    assert failed_steps(results) == [6]
    p = verdict(results, 6, "cdi.conflicting_spec")
    assert p.path == "/etc/cdi/nvidia-extra.yaml" and len(results[6].problems) == 1, results[6].text()
