"""Step 6 on a node judges the CDI spec as the node reads it (issue 51): every path it names (a device node's
hostPath, or its path without one; a mount's hostPath; a hook's path) is looked up under the root, links as
in a chroot, and one the node does not have is the step's finding, never a pass. Through plain papermill on a
node root made from containerd 2.3's own default config (v4, CDI on, /etc/cdi and /var/run/cdi scanned), the
spec where the toolkit's nvidia-cdi-refresh leaves it: /var/run/cdi/nvidia.yaml. A lab's spec is the course's
(the lab has no devices) and is never held to it."""

from __future__ import annotations

import os
from pathlib import Path

from grading_helpers import lab_root, papermill, step_records
from helpers import tree_state
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run

V4 = Path(__file__).resolve().parents[1] / "fixtures" / "distro" / "containerd-2.3-config-v4.toml"
SPEC = "/var/run/cdi/nvidia.yaml"
LIB = "/usr/lib/x86_64-linux-gnu"


def spec(device_nodes: str, mounts: str = "", hooks: str = "") -> str:
    return ('cdiVersion: "0.5.0"\nkind: nvidia.com/gpu\ndevices:\n  - name: all\n    containerEdits:\n'
            f"      deviceNodes:\n{device_nodes}"
            f"containerEdits:\n  env:\n    - NVIDIA_VISIBLE_DEVICES=void\n{mounts}{hooks}")


def node(tmp_path: Path, text: str) -> Path:
    """A node's root: containerd 2.3's default config, one GPU's device nodes (files standing in for them),
    the driver's libcuda with its soname link written as the driver writes it (absolute: it resolves under the
    root, never on this machine), nvidia-cdi-hook, and the spec in /var/run/cdi."""
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / "etc/containerd/config.toml").write_bytes(V4.read_bytes())
    (root / "dev").mkdir()
    for name in ("nvidia0", "nvidiactl"):
        (root / "dev" / name).write_bytes(b"")
    (root / LIB.lstrip("/")).mkdir(parents=True)
    (root / f"{LIB.lstrip('/')}/libcuda.so.550.54.14").write_bytes(b"libcuda\n")
    os.symlink(f"{LIB}/libcuda.so.550.54.14", root / f"{LIB.lstrip('/')}/libcuda.so.1")
    (root / "usr/bin").mkdir(parents=True)
    (root / "usr/bin/nvidia-cdi-hook").write_bytes(b"#!/bin/sh\n")
    (root / "var/run/cdi").mkdir(parents=True)
    (root / SPEC.lstrip("/")).write_text(text)
    return root


NODES = "        - path: /dev/nvidia0\n        - path: /dev/nvidiactl\n          hostPath: /dev/nvidiactl\n"
MOUNT = (f"  mounts:\n    - hostPath: {LIB}/libcuda.so.1\n      containerPath: {LIB}/libcuda.so.1\n"
         "      options: [ro, nosuid, nodev, bind]\n")
HOOK = ("  hooks:\n    - hookName: createContainer\n      path: /usr/bin/nvidia-cdi-hook\n"
        "      args: [nvidia-cdi-hook, update-ldcache]\n")


def test_a_node_spec_whose_every_path_the_node_has_passes_step_6(tmp_path):
    root = node(tmp_path, spec(NODES, MOUNT, HOOK))
    assert not Path(f"{LIB}/libcuda.so.550.54.14").exists(), "the link resolves under the root only"
    out = tmp_path / "out.ipynb"
    proc = papermill(root, out, "-p", "profile", "node")
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    step = step_records(out)[6]
    assert step["status"] == "unchanged", step  # the spec is the node's: kept, and judged right
    assert [p["code"] for p in step["problems"]] == []
    (line,) = [line for line in proc.stdout.splitlines() if line.split()[1:2] == ["6"]]
    assert "통과 / passed" in line, proc.stdout


def test_a_node_spec_made_under_a_mount_point_fails_step_6_with_the_root_transform_before_any_write(tmp_path):
    """The spec `nvidia-ctk cdi generate --driver-root=/host --dev-root=/host` makes in a DaemonSet: every
    path under /host, which the node itself does not have. The run refuses before its first write."""
    nodes = ("        - path: /dev/nvidia0\n          hostPath: /host/dev/nvidia0\n"
             "        - path: /dev/nvidiactl\n          hostPath: /host/dev/nvidiactl\n")
    mount = MOUNT.replace(f"hostPath: {LIB}", f"hostPath: /host{LIB}")
    root = node(tmp_path, spec(nodes, mount, HOOK))
    before = tree_state(root)
    out = tmp_path / "out.ipynb"
    proc = papermill(root, out, "-p", "profile", "node")
    assert proc.returncode != 0
    step = step_records(out)[6]
    assert step["status"] == "failed", step
    (problem,) = step["problems"]
    assert problem["code"] == "cdi.paths_missing.mount_point"
    assert problem["path"] == SPEC and problem["line"] == 8  # the first missing path's line
    assert problem["values"]["prefix"] == "/host" and problem["values"]["count"] == 3
    assert problem["values"]["paths"] == f"/host/dev/nvidia0, /host/dev/nvidiactl, /host{LIB}/libcuda.so.1"
    fix = f"nvidia-ctk cdi transform root --from /host --to / --input {SPEC} --output {SPEC}"
    assert fix in problem["fix"]["en"] and fix in problem["fix"]["ko"]
    assert "/host/dev/nvidia0" in proc.stdout and "실패 / failed" in proc.stdout
    assert tree_state(root) == before  # nothing written, the spec byte for byte as it was


def test_a_node_spec_naming_a_gpu_and_a_library_the_node_lacks_fails_step_6_in_check_mode(tmp_path):
    """A second GPU the node does not have, and a soname link whose library is gone (a driver upgrade that left
    the spec behind): both named, with the fix that makes the spec again on the node."""
    nodes = NODES + "        - path: /dev/nvidia1\n"
    root = node(tmp_path, spec(nodes, MOUNT, HOOK))
    (root / f"{LIB.lstrip('/')}/libcuda.so.550.54.14").unlink()  # the link now points at nothing
    out = tmp_path / "out.ipynb"
    proc = papermill(root, out, "-p", "profile", "node", "-p", "mode", "check")
    assert proc.returncode != 0
    step = step_records(out)[6]
    assert step["status"] == "failed", step
    found = [p for p in step["problems"] if p["code"].startswith("cdi.paths_missing")]
    assert [p["code"] for p in found] == ["cdi.paths_missing"], step["problems"]
    assert found[0]["values"]["paths"] == f"/dev/nvidia1, {LIB}/libcuda.so.1"
    assert found[0]["line"] == 10 and found[0]["pointer"] == "/devices/0/containerEdits/deviceNodes/2/path"
    assert f"nvidia-ctk cdi generate --output={SPEC}" in found[0]["fix"]["en"]
    assert f"nvidia-ctk cdi generate --output={SPEC}" in found[0]["fix"]["ko"]


def test_a_labs_spec_is_not_held_to_the_nodes_paths(tmp_path):
    """The lab has no devices: its spec is judged by the course's rules only."""
    root = lab_root(tmp_path)
    (root / "etc/cdi").mkdir(parents=True, exist_ok=True)
    (root / "etc/cdi/nvidia.yaml").write_text(spec("        - path: /dev/nvidia7\n          hostPath: /host/dev/nvidia7\n"))
    rb = Run(validate(root=str(root), mode="check", profile="lab")).start()
    try:
        results = rb.run_all()
    finally:
        rb.finish()
    assert not (root / "dev/nvidia7").exists()
    assert not [p.code for p in results["cdi"].problems if p.code.startswith("cdi.paths_missing")]
