"""mode=remove takes out exactly what the runbook added (issue 14): the config comes back byte for byte, the
toolkit files and the minimal CDI spec it wrote go (kept as backups), a file a person wrote stays, a second run
changes nothing, and the same holds through papermill."""

import pytest

from grading_helpers import run_all
from helpers import FIXTURES, run_notebook, tree_state
from runbook_lib.containerd.distro.render import render_microk8s

CONFIG = "etc/containerd/config.toml"
TOOLKIT = "root/toolkit"


def _applied(tmp_path, layout="inplace"):
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    original = (FIXTURES / "containerd-1.6.20-default.toml").read_bytes()
    (root / CONFIG).write_bytes(original)
    assert not any(r.failed for r in run_all(root, layout=layout).values())
    return root, original


def _remove(root, **params):
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run
    rb = Run(validate(root=str(root), mode="remove", **params)).start()
    try:
        return rb.run_all()
    finally:
        rb.finish()


@pytest.mark.parametrize("layout", ["inplace", "dropin"])
def test_remove_gives_the_original_config_back_and_is_idempotent(tmp_path, layout):
    root, original = _applied(tmp_path, layout)
    results = _remove(root, layout=layout)
    assert results["remove"].status == "changed" and not results["remove"].failed, results["remove"].text()
    assert (root / CONFIG).read_bytes() == original
    assert not (root / "etc/containerd/conf.d/99-nvidia.toml").exists()
    for name in ("default.txt", "parsed.txt", "cdi-keys.txt", "runtimeclass.yaml", "report.txt"):
        assert not (root / TOOLKIT / name).exists(), name
        assert list((root / TOOLKIT).glob(f"{name}.runbook-backup-*")), f"{name} is kept as a backup"
    assert not (root / "etc/cdi/nvidia.yaml").exists()
    before = tree_state(root)
    again = _remove(root, layout=layout)
    assert again["remove"].status == "unchanged" and not again["remove"].failed
    assert {k: v for k, v in tree_state(root).items() if not k.startswith("run")} == \
        {k: v for k, v in before.items() if not k.startswith("run")}


def test_remove_keeps_what_a_person_wrote(tmp_path):
    root, _ = _applied(tmp_path)
    (root / TOOLKIT / "report.txt").write_text("my own notes\n")
    _remove(root)
    assert (root / TOOLKIT / "report.txt").read_text() == "my own notes\n"


def test_remove_through_papermill(tmp_path):
    root, original = _applied(tmp_path)
    run_notebook(root, tmp_path / "removed.ipynb", mode="remove")
    assert (root / CONFIG).read_bytes() == original



K3S = "var/lib/rancher/k3s/agent/etc/containerd"
MK8S = "var/snap/microk8s/current/args"


def _distro_cases():
    from distro_helpers import distro_fixture
    crlf = '{{ template "base" . }}\r\n\r\n[plugins."io.containerd.grpc.v1.cri".registry.mirrors."docker.io"]\r\n  endpoint = ["https://m.local"]\r\n'
    return {
        # (files, the route's file the runbook writes, parameters)
        "k3s-template": ({f"{K3S}/config.toml": distro_fixture("k3s-v3/config.toml"),
                          f"{K3S}/config-v3.toml.tmpl": distro_fixture("k3s-v3/config-v3.toml.tmpl")},
                         f"{K3S}/config-v3.toml.tmpl", {}),
        "k3s-template-crlf": ({f"{K3S}/config.toml": distro_fixture("k3s-v2/config.toml"), f"{K3S}/config.toml.tmpl": crlf},
                              f"{K3S}/config.toml.tmpl", {}),
        "k3s-dropin": ({f"{K3S}/config.toml": distro_fixture("k3s-v3-dropin/config.toml")},
                       f"{K3S}/config-v3.toml.d/99-nvidia.toml", {"replace_runtime": True}),
        "microk8s": ({f"{MK8S}/containerd-template.toml": distro_fixture("microk8s/containerd-template.toml"),
                      # microk8s has started once: its generated config is there
                      f"{MK8S}/containerd.toml": render_microk8s(distro_fixture("microk8s/containerd-template.toml"))},
                     f"{MK8S}/containerd-template.toml", {}),
        "k0s": ({"etc/k0s/containerd.toml": distro_fixture("k0s/containerd.toml"), "etc/k0s/containerd.d/.keep": ""},
                "etc/k0s/containerd.d/nvidia.toml", {}),
    }


@pytest.mark.parametrize("case", ["k3s-template", "k3s-template-crlf", "k3s-dropin", "microk8s", "k0s"])
def test_remove_on_a_distributions_route_takes_out_what_apply_wrote_there(tmp_path, case):
    """The remove step used to look only at the file the distribution generates (where the runbook never
    writes) and said "nothing to remove", leaving the template block or the drop-in in place."""
    from distro_helpers import write_root
    files, written, params = _distro_cases()[case]
    root = write_root(tmp_path, files)
    original = (root / written).read_bytes() if (root / written).exists() else None
    applied = run_all(root, **params)
    assert not any(r.failed for r in applied.values()) and (root / written).read_bytes() != original
    results = _remove(root, **params)
    assert results["remove"].status == "changed" and not results["remove"].failed, results["remove"].text()
    assert ((root / written).read_bytes() if (root / written).exists() else None) == original
    for rel, content in files.items():
        assert (root / rel).read_bytes() == (content.encode() if isinstance(content, str) else content), rel
    again = _remove(root, **params)
    assert again["remove"].status == "unchanged" and not again["remove"].failed, again["remove"].text()
