"""`smoke node` with `enable_cdi`: the container asks for the CDI device `nvidia.com/gpu=all`, and a probe
container of the same pod shows whether the spec's containerEdits arrived. Against a throw-away containerd 2.x
(each pinned release) standing in for the node: its socket is `cri_endpoint`, it scans the lab root's
etc/cdi for specs, and the spec there makes edits this machine can observe without a GPU: env vars (spec-wide
and the device's), a bind mount of a temp file and a device node (a copy of /dev/null).

The pass: every edit arrived. The failures: a spec without the device `all` (containerd's words), a containerd
that reads another spec of the kind (the edits that did not arrive are named), and one that runs with CDI off: 2.2 ignores the request without a word (the edits
are missing), 2.3 refuses it (containerd's words), and 2.4, which dropped the setting, keeps CDI on.
"""
import os

import pytest

import pod_node
import realenv
from pod_traces import traces_of

pytestmark = pytest.mark.real
pytest.importorskip("grpc")
GPU = "GPU 0: Stand-in GPU (UUID: GPU-00000000-0000-0000-0000-000000000000)"
MOUNTED = "/run/runbook-cdi/probe.txt"
NODE = "/dev/runbook-cdi-null"
SPEC = """cdiVersion: "0.5.0"
kind: nvidia.com/gpu
devices:
  - name: {device}
    containerEdits:
      env:
        - RUNBOOK_CDI_DEVICE=all
      mounts:
        - hostPath: {host_file}
          containerPath: {mounted}
          options: [ro, bind]
      deviceNodes:
        - path: {node}
          hostPath: /dev/null
containerEdits:
  env:
    - RUNBOOK_CDI_SPEC=arrived
"""
EDITS = ["env RUNBOOK_CDI_SPEC=arrived", "env RUNBOOK_CDI_DEVICE=all", f"mounts {MOUNTED}", f"deviceNodes {NODE}"]


OTHER_SPEC = """cdiVersion: "0.5.0"
kind: nvidia.com/gpu
devices:
  - name: all
    containerEdits:
      env:
        - FROM_ANOTHER_SPEC=1
"""


def _node(containerd, base, *, cdi_on: bool = True, scans_the_root: bool = True, device: str = "all") -> pod_node.Node:
    """A node whose containerd has enable_cdi as given and scans the lab root's etc/cdi (holding SPEC), or
    another folder holding another spec of the same kind (as a node whose specs the GPU Operator wrote
    to /var/run/cdi while the runbook's is in /etc/cdi); SPEC's device is named `device`."""
    from runbook_lib.containerd.tables import get_in
    from runbook_lib.containerd.versions import of
    host_file = base / "probe.txt"
    host_file.write_text("from the CDI spec\n")
    other = base / "other-cdi"
    other.mkdir()
    (other / "nvidia.yaml").write_text(OTHER_SPEC)

    def scan_the_specs(data, version):
        root_cdi = base / "root" / "etc" / "cdi"
        (root_cdi / "nvidia.yaml").write_text(SPEC.format(host_file=host_file, mounted=MOUNTED, node=NODE, device=device))
        plugin = get_in(data, of(version).cri_plugin)
        plugin["enable_cdi"], plugin["cdi_spec_dirs"] = cdi_on, [str(root_cdi if scans_the_root else other)]

    return pod_node.Node(containerd, base, tweak=scan_the_specs, enable_cdi=True)


def _releases(before: tuple[int, int] | None = None, since: tuple[int, int] | None = None) -> list[str]:
    """The pinned 2.x releases in a range of minor lines (where they differ in how they answer)."""
    def minor(v: str) -> tuple[int, int]:
        return tuple(int(n) for n in v.split(".")[:2])
    return [v for v in realenv.containerd2_versions()
            if (before is None or minor(v) < before) and (since is None or minor(v) >= since)]


@pytest.fixture
def node_for(tmp_path):
    realenv.need_root()
    realenv.need_program("unshare")
    realenv.need_program("ctr")
    pod_node.need_busybox()
    made = []

    def start(release: str, **kw) -> pod_node.Node:
        containerd = realenv.need_containerd(release)
        realenv.need_own_shim(containerd)
        made.append(_node(containerd, tmp_path, **kw))
        return made[-1]

    yield start
    for node in made:
        node.daemon.stop()
        assert node.daemon.leftovers() == []
    assert traces_of(tmp_path, os.getpid()) == []  # the nodes' own (their folders, this process's pods)


def _check(node):
    return node.check(f"/bin/busybox echo '{GPU}'", enable_cdi=True)


@pytest.mark.parametrize("release", _releases())
def test_the_cdi_spec_s_edits_arrive_in_the_container(node_for, release):
    result, reading = _check(node_for(release))
    assert result.status == "passed", [p.what.en for p in result.problems]
    facts = reading.facts
    assert facts["cdi_devices"] == ["nvidia.com/gpu=all"] and facts["cdi_enabled"] is True
    assert facts["cdi_probe"]["exit_code"] == 0 and sorted(facts["cdi_probe"]["arrived"]) == sorted(EDITS)
    assert facts["cdi_missing"] == [] and facts["left"] == []
    (shown,) = result.evidence.values()
    assert "arrived: env RUNBOOK_CDI_SPEC=arrived" in shown and f"mounts {MOUNTED}" in shown


@pytest.mark.parametrize("release", _releases())
def test_a_containerd_reading_another_spec_of_the_kind_fails_with_the_edits_that_did_not_arrive(node_for, release):
    result, reading = _check(node_for(release, scans_the_root=False))
    assert result.status == "failed"
    (problem,) = result.problems
    assert problem.code == "pod.node.cdi_edits_missing"
    for item in ("env RUNBOOK_CDI_SPEC=arrived ≠ <unset>", "env RUNBOOK_CDI_DEVICE=all ≠ <unset>",
                 f"mounts {MOUNTED}", f"deviceNodes {NODE}"):
        assert item in problem.what.en and item in problem.what.ko
    assert "enable_cdi is true" in problem.what.en and "/etc/cdi/nvidia.yaml" in problem.fix.en
    assert reading.facts["cdi_probe"]["arrived"] == [] and reading.facts["left"] == []


@pytest.mark.parametrize("release", _releases(before=(2, 3)))
def test_containerd_2_2_with_cdi_off_ignores_the_request_and_the_edits_are_missing(node_for, release):
    result, reading = _check(node_for(release, cdi_on=False))
    (problem,) = result.problems
    assert problem.code == "pod.node.cdi_edits_missing" and "enable_cdi is false" in problem.what.en
    assert "enable_cdi = true" in problem.fix.ko and reading.facts["cdi_probe"]["arrived"] == []


@pytest.mark.parametrize("release", _releases(since=(2, 3), before=(2, 4)))
def test_containerd_2_3_with_cdi_off_refuses_the_request_in_its_own_words(node_for, release):
    result, reading = _check(node_for(release, cdi_on=False))
    (problem,) = result.problems
    assert problem.code == "pod.node.cdi_disabled"
    said = "CDI devices (nvidia.com/gpu=all) requested but CDI support is explicitly disabled"
    assert said in problem.what.en and said in problem.what.ko and "enable_cdi = true" in problem.fix.en
    assert reading.facts["container_id"] is None and reading.facts["left"] == []


@pytest.mark.parametrize("release", _releases(since=(2, 4)))
def test_containerd_2_4_keeps_cdi_on_whatever_enable_cdi_says_and_the_edits_arrive(node_for, release):
    """2.4 dropped enable_cdi (its migration skips the key): CDI is always on, so a false changes nothing."""
    result, reading = _check(node_for(release, cdi_on=False))
    assert result.status == "passed", [p.what.en for p in result.problems]
    assert reading.facts["cdi_enabled"] is True and sorted(reading.facts["cdi_probe"]["arrived"]) == sorted(EDITS)


@pytest.mark.parametrize("release", _releases())
def test_a_spec_without_the_device_all_fails_with_containerds_words_and_how_to_regenerate_it(node_for, release):
    result, reading = _check(node_for(release, device="gpu0"))
    (problem,) = result.problems
    assert problem.code == "pod.node.cdi_unresolvable"
    said = "unresolvable CDI devices nvidia.com/gpu=all"
    assert said in problem.what.en and said in problem.what.ko
    assert "nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml" in problem.fix.en and reading.facts["left"] == []
