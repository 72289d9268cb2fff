"""Against nvidia-ctk: for every case in tests/fixtures/conformance/nvidia-ctk/, the effective runtime table we
produce (in both layouts) equals what containerd ends up with after nvidia-ctk, apart from the deliberate
differences documented in docs/CONFORMANCE.md."""

import copy
import json

import pytest

from layouts import CASES, CONFIG, effective, make_root, run_steps, runtimes
from runbook_lib.containerd.edit import default_runtime_name
from runbook_lib.containerd.versions import runtimes_path


def ours_expected(expected: dict, systemd_cgroup: bool) -> dict:
    """expected.json's `nvidia` with the documented differences applied."""
    table = copy.deepcopy(expected["nvidia"])
    table["options"]["SystemdCgroup"] = systemd_cgroup   # explicit, from the parameter (not inherited)
    if expected["config_version"] == 1:
        table["options"].pop("Runtime", None)             # runc.v2 has no options.Runtime: containerd ignores it
    return table


def test_every_case_is_covered():
    assert len(CASES) >= 6 and all((c / "input.toml").is_file() for c in CASES)


@pytest.mark.parametrize("layout", ["inplace", "dropin"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_effective_runtime_matches_nvidia_ctk(tmp_path, case, layout):
    expected = json.loads((case / "expected.json").read_text())
    root = make_root(tmp_path, case / "input.toml")
    rb = run_steps(root, layout=layout)
    assert rb.ok(), [p.what.en for r in rb.results.values() for p in r.problems]
    eff = effective(root)
    assert eff.version == expected["config_version"]
    assert list(runtimes_path(eff.version)) == expected["runtimes_path"]
    assert default_runtime_name(eff.data, eff.version) == expected["default_runtime_name"]
    assert runtimes(root)["nvidia"] == ours_expected(expected, True)
    report = (root / "root/toolkit/report.txt").read_text()
    assert f"CONFIG_VERSION={expected['config_version']}\n" in report


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_with_the_default_runtimes_cgroup_driver_only_v1s_runtime_option_differs(tmp_path, case):
    """With systemd_cgroup equal to what nvidia-ctk inherited, the tables are equal but for v1's Runtime."""
    expected = json.loads((case / "expected.json").read_text())
    inherited = expected["nvidia"]["options"]["SystemdCgroup"]
    root = make_root(tmp_path, case / "input.toml")
    run_steps(root, steps=[1, 2], systemd_cgroup=inherited)
    want = copy.deepcopy(expected["nvidia"])
    if expected["config_version"] == 1:
        want["options"].pop("Runtime")
    assert runtimes(root)["nvidia"] == want


def test_a_cgroup_driver_that_disagrees_with_the_default_runtime_is_warned_about(tmp_path):
    case = next(c for c in CASES if "1.6.20" in c.name)  # runc there has SystemdCgroup = false
    root = make_root(tmp_path, case / "input.toml")
    rb = run_steps(root, steps=[1, 2, 3], systemd_cgroup=True)
    warned = [p for p in rb.results["options"].problems if p.code == "options.systemd_cgroup.differs_from_default"]
    assert warned and not warned[0].is_error and not rb.results["options"].failed, rb.results["options"].text()
    assert "(false)" in warned[0].what.en and "주의" in warned[0].what.ko
    assert (root / CONFIG).read_text().count("SystemdCgroup = true") == 1
    # one rule: check mode on that very result warns the same way and passes (docs/GUARANTEES.md)
    again = run_steps(root, steps=[1, 2, 3], systemd_cgroup=True, mode="check")
    assert [p.code for p in again.results["options"].problems] == [warned[0].code] and again.results["options"].status == "passed"
