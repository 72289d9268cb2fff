"""The distributions through the runbook's own steps (issue 14): every step reads what the distribution's
containerd will read, step 2 writes the distribution's route (template or drop-in folder), the generated file
is never touched, check mode agrees with apply, and a second run changes nothing."""

import pytest

from distro_helpers import distro_fixture, write_root
from grading_helpers import check, run_all
from helpers import tree_state
from runbook_lib.containerd.distro.render import render_microk8s

K3S = "var/lib/rancher/k3s/agent/etc/containerd"
MK8S = "var/snap/microk8s/current/args"

CASES = {
    # k3s with containerd 2.x: the generated file imports config-v3.toml.d/*.toml, so a drop-in goes there
    # (k3s added its own nvidia runtime, for the GPU Operator's binary: replacing it is asked for)
    "k3s-dropin": ({f"{K3S}/config.toml": distro_fixture("k3s-v3-dropin/config.toml")},
                   f"{K3S}/config-v3.toml.d/99-nvidia.toml", f"{K3S}/config.toml"),
    # k3s without drop-in folders: the Go template, created with the base included
    "k3s-template": ({f"{K3S}/config.toml": distro_fixture("k3s-v3/config.toml")},
                     f"{K3S}/config-v3.toml.tmpl", f"{K3S}/config.toml"),
    # microk8s: the placeholder template, never args/containerd.toml
    # (microk8s has started once: its generated containerd.toml is there, rendered from the template)
    "microk8s": ({f"{MK8S}/containerd-template.toml": distro_fixture("microk8s/containerd-template.toml"),
                  f"{MK8S}/containerd.toml": render_microk8s(distro_fixture("microk8s/containerd-template.toml"))},
                 f"{MK8S}/containerd-template.toml", f"{MK8S}/containerd.toml"),
    # k0s-managed: a drop-in in /etc/k0s/containerd.d
    "k0s": ({"etc/k0s/containerd.toml": distro_fixture("k0s/containerd.toml"), "etc/k0s/containerd.d/.keep": ""},
            "etc/k0s/containerd.d/nvidia.toml", "etc/k0s/containerd.toml"),
}


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
