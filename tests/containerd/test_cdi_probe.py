"""The CDI edits `smoke node` expects (runbook_lib/cdi/edits.py) and how its probe's output is read
(runbook_lib/containerd/smoke/cdi_probe.py); the probe itself runs in a real container in
tests/real/test_real_pod_cdi.py."""
from runbook_lib.cdi.edits import expected_edits
from runbook_lib.containerd.smoke import cdi_probe

SPEC = {"kind": "nvidia.com/gpu",
        "containerEdits": {"env": ["A=spec", "B=spec"], "mounts": [{"hostPath": "/h", "containerPath": "/lib/x.so"}]},
        "devices": [{"name": "all", "containerEdits": {"env": ["B=all"], "deviceNodes": [{"path": "/dev/nvidia0"}]}},
                    {"name": "0", "containerEdits": {"env": ["C=zero"], "deviceNodes": [{"path": "/dev/nvidia1"}]}}]}


def test_the_spec_wide_edits_then_the_named_device_s_last_value_winning():
    assert expected_edits(SPEC, "all") == {"env": {"A": "spec", "B": "all"}, "mounts": ["/lib/x.so"],
                                           "device_nodes": ["/dev/nvidia0"]}


def test_a_mount_point_with_a_space_is_read_back_from_mountinfo_s_escape():
    expected = {"env": {}, "mounts": ["/run/a b"], "device_nodes": []}
    seen = cdi_probe.observed("mountinfo 36 25 0:32 / /run/a\\040b ro,relatime - tmpfs tmpfs rw\n")
    assert seen["mounts"] == ["/run/a b"] and cdi_probe.missing(expected, seen) == []


def test_what_did_not_arrive_is_named_by_the_spec_s_keys():
    expected = expected_edits(SPEC, "all")
    seen = cdi_probe.observed("env A=spec\nunset B\nmountinfo 1 2 0:3 / / rw - overlay overlay rw\n")
    assert cdi_probe.missing(expected, seen) == ["env B=all ≠ <unset>", "mounts /lib/x.so", "deviceNodes /dev/nvidia0"]
    assert cdi_probe.arrived(expected, seen) == ["env A=spec"]


def test_the_probe_uses_only_the_image_s_shell():
    argv = cdi_probe.probe_command({"env": {"A": "1", "not a name": "x"}, "mounts": [], "device_nodes": ["/dev/x y"]})
    assert argv[:2] == ["/bin/sh", "-c"] and "not a name" not in argv[2] and "'/dev/x y'" in argv[2]
