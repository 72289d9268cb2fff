"""Shared helpers for the issue-14 library tests: fixtures under tests/fixtures/distro, the in-place plan as
the steps make it (template copied from the default runtime), and containerd 1.6's own reading."""

from __future__ import annotations

import tomllib
from pathlib import Path

from runbook_lib.containerd.edit import RuntimeWanted, plan_runtime, template_runtime
from runbook_lib.containerd.distro.render import render_microk8s
from runbook_lib.containerd.versions import detect_version

DISTRO = Path(__file__).parent / "fixtures" / "distro"
NVIDIA = "/usr/bin/nvidia-container-runtime"
WANTED = RuntimeWanted("nvidia", NVIDIA, True)


def distro_fixture(name: str) -> str:
    return (DISTRO / name).read_text()


def plan_inplace(text: str, wanted: RuntimeWanted = WANTED, **kw):
    data = tomllib.loads(text)
    version = detect_version(data, path="/x", empty=not data)
    template, source = template_runtime(data, version, wanted)
    return plan_runtime(text, data, version, wanted, template, lab_path="/etc/containerd/config.toml",
                        source_name=source, **kw)


def containerd_reads(root: Path, config_rel: str = "etc/containerd/config.toml", runtime: str = "nvidia") -> dict:
    """containerd 1.6's `config dump` of a file under ``root`` (skips, or fails under RUNBOOK_REQUIRE_REAL=1,
    without containerd or root)."""
    import sys
    sys.path.insert(0, str(Path(__file__).parent / "real"))
    from realenv import need_program, need_root
    from runbook_lib.containerd.verify import containerd_reading
    binary = need_program("containerd")
    need_root()
    return containerd_reading(binary, root / config_rel, root, runtime)


def write_root(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    root = tmp_path / "root"
    for rel, content in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(content.encode() if isinstance(content, str) else content)
    return root


# The distributions as the runbook's steps meet them (tests/containerd/test_distro_steps.py, step 2's route rules):
# for each, the files under the root, the file step 2 writes and the file containerd is given.
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
