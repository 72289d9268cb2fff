"""The distributions through the runbook's own steps (issue 14): every step reads what the distribution's
containerd will read, step 2 writes the distribution's route (template or drop-in folder), the generated file
is never touched, check mode agrees with apply, and a second run changes nothing."""

import pytest

from distro_helpers import CASES, K3S, distro_fixture, write_root
from grading_helpers import check, run_all
from helpers import tree_state



@pytest.mark.parametrize("case", sorted(CASES))
def test_a_distribution_is_configured_on_its_route(tmp_path, case):
    files, written, generated = CASES[case]
    root = write_root(tmp_path, files)
    untouched = (root / generated).read_bytes() if generated else None
    params = {"replace_runtime": True} if case == "k3s-dropin" else {}
    applied = run_all(root, **params)
    assert not any(r.failed for r in applied.values()), "\n".join(r.text() for r in applied.values() if r.failed)
    assert applied[2].status == "changed" and (root / written).is_file()
    assert not (root / "etc/containerd/config.toml").exists(), "no plain containerd config appears beside the distribution's"
    if generated:
        assert (root / generated).read_bytes() == untouched, "the generated file is never edited"
    assert "nvidia" in (root / "root/toolkit/parsed.txt").read_text().split("RUNTIMES=")[1].strip().split(",")
    assert not any(r.failed for r in check(root, **params).values())
    before = {k: v for k, v in tree_state(root).items() if not k.startswith("run")}
    again = run_all(root, **params)
    assert all(r.status in ("unchanged", "skipped", "passed") for r in again.values()), \
        {n: r.status for n, r in again.items()}
    assert {k: v for k, v in tree_state(root).items() if not k.startswith("run")} == before


def test_the_generated_file_given_as_the_config_is_refused_and_names_the_route(tmp_path):
    """Plain containerd asked for explicitly, on a k3s file: the generated file is never edited."""
    root = write_root(tmp_path, {f"{K3S}/config.toml": distro_fixture("k3s-v3/config.toml")})
    before = tree_state(root)
    results = run_all(root, distro="containerd", config_path=f"/{K3S}/config.toml")
    codes = [p.code for p in results[2].problems]
    assert "distro.generated_file" in codes, results[2].text()
    assert {k: v for k, v in tree_state(root).items() if not k.startswith("run")} == \
        {k: v for k, v in before.items() if not k.startswith("run")}


def test_two_distributions_under_one_root_ask_which(tmp_path):
    root = write_root(tmp_path, {f"{K3S}/config.toml": "", "etc/k0s/containerd.toml": ""})
    results = run_all(root)
    assert [p.code for p in results[2].problems] == ["distro.ambiguous"]
    assert not (root / "root/toolkit").exists()


def test_the_notebook_on_a_k0s_node_root(tmp_path):
    """The notebook's own cells (their visible assertions read the config containerd reads, rb.config_path)."""
    from helpers import run_notebook, step_records
    files, written, _ = CASES["k0s"]
    root = write_root(tmp_path, files)
    nb = run_notebook(root, tmp_path / "k0s.ipynb")
    records = step_records(nb)
    assert all(r["status"] in ("changed", "unchanged", "passed", "skipped") for r in records.values()), records
    assert (root / written).is_file() and not (root / "etc/containerd").exists()
