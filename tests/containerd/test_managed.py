"""runbook_lib/containerd/managed.py and owner.py's named binaries: another tool's file, or another owner's runtime,
is recognised before any rule about its contents (a warning naming the tool and where a change lasts; the
owner's finding, never a path typo's fix)."""
from __future__ import annotations

import pytest

from runbook_lib.containerd import managed
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run

RUNC_V2 = '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n  runtime_type = "io.containerd.runc.v2"\n'


def _check(tmp_path, text: str, os_release: str | None = None, profile: str = "node") -> Run:
    config = tmp_path / "etc" / "containerd" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(text)
    if os_release is not None:
        (tmp_path / "etc" / "os-release").write_text(os_release)
    rb = Run(validate(root=str(tmp_path), mode="check", profile=profile, default_runtime="keep")).start()
    try:
        rb.run_all()
    finally:
        rb.finish()
    return rb


@pytest.mark.parametrize("mark, tool, line", [
    ("# Ansible managed", "ansible", 1),
    ("# {{ ansible_managed }} -> Ansible managed: containerd.toml.j2 modified on 2026-01-01", "ansible", 1),
    ("# written by bashible step 032_configure_containerd", "deckhouse", 1),
    ("# Kubernetes doesn't use containerd restart manager.", "gke", 1),
])
def test_a_file_another_tool_writes_is_warned_about_with_the_tool_and_the_way_that_lasts(tmp_path, mark, tool, line):
    rb = _check(tmp_path, f"{mark}\nversion = 2\n{RUNC_V2}")
    found = [p for p in rb.results["runtime"].problems if p.code == "containerd.managed_file"]
    assert [(p.values["tool"], p.line, p.severity) for p in found] == [(tool, line, "warning")]
    assert str(found[0].values["instead"].en) in found[0].fix.en


def test_bottlerocket_is_known_by_its_os_release_when_its_file_carries_no_mark(tmp_path):
    rb = _check(tmp_path, f"version = 2\n{RUNC_V2}", os_release='NAME=Bottlerocket\nID=bottlerocket\n')
    assert [p.values["tool"] for p in rb.results["runtime"].problems if p.code == "containerd.managed_file"] == ["bottlerocket"]


def test_a_plain_config_has_no_managed_warning(tmp_path):
    rb = _check(tmp_path, f"# my own notes\nversion = 2\n{RUNC_V2}", os_release="ID=debian\n")
    assert [p for r in rb.results.values() for p in r.problems if p.code == "containerd.managed_file"] == []
    assert managed.tool_of("version = 2\n") is None


BOTTLEROCKET = ('version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd]\n  default_runtime_name = "nvidia"\n'
                '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n  runtime_type = "io.containerd.runc.v2"\n'
                '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]\n  SystemdCgroup = true\n'
                '  BinaryName = "nvidia-oci"\n')


def test_bottlerocket_s_nvidia_oci_is_another_owner_s_runtime_not_a_path_typo(tmp_path):
    rb = _check(tmp_path, BOTTLEROCKET)
    codes = [p.code for r in rb.results.values() for p in r.problems]
    owner = [p for p in rb.results["runtime"].problems if p.code == "runtime.other_binary"]
    assert [(p.values["owner"], p.line) for p in owner] == [("bottlerocket", 8)]
    assert "options.binary_name.relative" not in codes
    assert "/usr/bin/nvidia-container-runtime" not in " ".join(p.fix.en for r in rb.results.values() for p in r.problems
                                                               if p.code.startswith("options.binary_name"))
