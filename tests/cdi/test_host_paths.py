"""The node's paths a CDI spec names (runbook_lib/cdi/host_paths.py), looked up under a root as a chroot would."""

from __future__ import annotations

import os

from runbook_lib.cdi import host_paths
from runbook_lib.fs.target import Target

DOC = {
    "cdiVersion": "0.5.0", "kind": "nvidia.com/gpu",
    "devices": [{"name": "0", "containerEdits": {"deviceNodes": [{"path": "/dev/nvidia0"},
                                                                 {"path": "/dev/x", "hostPath": "/dev/nvidia9"}]}},
                {"name": "all", "containerEdits": {"deviceNodes": [{"path": "/dev/nvidia0"}]}}],
    "containerEdits": {"mounts": [{"hostPath": "/lib/loop.so", "containerPath": "/lib/loop.so"},
                                  {"hostPath": "relative/x", "containerPath": "/x"}],
                       "hooks": [{"hookName": "createContainer", "path": "/usr/bin/nvidia-cdi-hook"}]},
}


def test_each_path_once_at_its_first_place_devices_first_hostpath_over_path():
    assert host_paths.host_paths(DOC) == [
        ("/devices/0/containerEdits/deviceNodes/0/path", "/dev/nvidia0"),
        ("/devices/0/containerEdits/deviceNodes/1/hostPath", "/dev/nvidia9"),
        ("/containerEdits/mounts/0/hostPath", "/lib/loop.so"),
        ("/containerEdits/hooks/0/path", "/usr/bin/nvidia-cdi-hook"),
    ]


def test_links_resolve_inside_the_root_and_a_loop_is_missing(tmp_path):
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev/nvidia0").touch()
    (tmp_path / "usr/bin").mkdir(parents=True)
    (tmp_path / "usr/bin/nvidia-cdi-hook.real").touch()
    os.symlink("/usr/bin/nvidia-cdi-hook.real", tmp_path / "usr/bin/nvidia-cdi-hook")  # absolute: under the root
    (tmp_path / "lib").mkdir()
    os.symlink("loop.so", tmp_path / "lib/loop.so")
    target = Target(str(tmp_path))
    assert host_paths.missing(target, DOC) == [("/devices/0/containerEdits/deviceNodes/1/hostPath", "/dev/nvidia9"),
                                               ("/containerEdits/mounts/0/hostPath", "/lib/loop.so")]


def test_the_mount_point_is_the_folder_whose_removal_leaves_the_nodes_paths(tmp_path):
    (tmp_path / "dev").mkdir()
    for name in ("nvidia0", "nvidiactl"):
        (tmp_path / "dev" / name).touch()
    target = Target(str(tmp_path))
    assert host_paths.mount_prefix(target, ["/host/dev/nvidia0", "/host/dev/nvidiactl"]) == "/host"
    assert host_paths.mount_prefix(target, ["/a/b/dev/nvidia0"]) == "/a/b"
    # one of them is not the node's under any folder: no transform makes the spec right
    assert host_paths.mount_prefix(target, ["/host/dev/nvidia0", "/host/dev/nvidia1"]) is None
    assert host_paths.mount_prefix(target, ["/dev/nvidia1"]) is None


def test_shown_names_the_first_three_and_how_many_more():
    assert host_paths.shown(["/a", "/b"]) == "/a, /b"
    assert host_paths.shown(["/a", "/b", "/c", "/d", "/e"]) == "/a, /b, /c (+2)"
