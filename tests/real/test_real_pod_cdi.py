"""`smoke node` with `enable_cdi`: the container asks for the CDI device `nvidia.com/gpu=all`, and a probe
container of the same pod shows whether the spec's containerEdits arrived. Against a throw-away containerd 2.x
(each pinned release) standing in for the node: its socket is `cri_endpoint`, it scans the lab root's
etc/cdi for specs, and the spec there makes edits this machine can observe without a GPU: env vars (spec-wide
and the device's), a bind mount of a temp file and a device node (a copy of /dev/null).

The pass: every edit arrived. The failure: the same request to a containerd that runs with CDI off, which
ignores it without a word; the step fails with the edits that did not arrive.
"""
import pytest

import pod_node
import realenv
from pod_traces import traces

pytestmark = pytest.mark.real
pytest.importorskip("grpc")
GPU = "GPU 0: Stand-in GPU (UUID: GPU-00000000-0000-0000-0000-000000000000)"
MOUNTED = "/run/runbook-cdi/probe.txt"
NODE = "/dev/runbook-cdi-null"
SPEC = """cdiVersion: "0.5.0"
kind: nvidia.com/gpu
devices:
  - name: all
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


def _node(containerd, base, *, cdi_on: bool) -> pod_node.Node:
    """A node whose containerd scans the lab root's etc/cdi (holding SPEC), with enable_cdi as given."""
    from runbook_lib.containerd.tables import get_in
    from runbook_lib.containerd.versions import CRI_RUNTIME_PLUGIN
    host_file = base / "probe.txt"
    host_file.write_text("from the CDI spec\n")

    def scan_the_root_s_specs(data, version):
        root_cdi = base / "root" / "etc" / "cdi"
        (root_cdi / "nvidia.yaml").write_text(SPEC.format(host_file=host_file, mounted=MOUNTED, node=NODE))
        plugin = get_in(data, CRI_RUNTIME_PLUGIN[version])
        plugin["enable_cdi"], plugin["cdi_spec_dirs"] = cdi_on, [str(root_cdi)]

    return pod_node.Node(containerd, base, tweak=scan_the_root_s_specs, enable_cdi=True)


@pytest.fixture
def node_for(containerd2, tmp_path):
    realenv.need_program("ctr")
    pod_node.need_busybox()
    made = []

    def start(cdi_on: bool) -> pod_node.Node:
        made.append(_node(containerd2, tmp_path, cdi_on=cdi_on))
        return made[-1]

    yield start
    for node in made:
        node.daemon.stop()
        assert node.daemon.leftovers() == []
    assert traces() == []


def test_the_cdi_spec_s_edits_arrive_in_the_container(node_for):
    node = node_for(cdi_on=True)
    result, reading = node.check(f"/bin/busybox echo '{GPU}'", enable_cdi=True)
    assert result.status == "passed", [p.what.en for p in result.problems]
    facts = reading.facts
    assert facts["cdi_devices"] == ["nvidia.com/gpu=all"] and facts["cdi_enabled"] is True
    assert facts["cdi_probe"]["exit_code"] == 0 and sorted(facts["cdi_probe"]["arrived"]) == sorted(EDITS)
    assert facts["cdi_missing"] == [] and facts["left"] == []
    (shown,) = result.evidence.values()
    assert "arrived: env RUNBOOK_CDI_SPEC=arrived" in shown and f"mounts {MOUNTED}" in shown


def test_a_containerd_with_cdi_off_ignores_the_request_and_the_step_names_what_did_not_arrive(node_for):
    node = node_for(cdi_on=False)
    result, reading = node.check(f"/bin/busybox echo '{GPU}'", enable_cdi=True)
    assert result.status == "failed"
    (problem,) = result.problems
    assert problem.code == "pod.node.cdi_edits_missing"
    for item in ("env RUNBOOK_CDI_SPEC=arrived ≠ <unset>", "env RUNBOOK_CDI_DEVICE=all ≠ <unset>",
                 f"mounts {MOUNTED}", f"deviceNodes {NODE}"):
        assert item in problem.what.en and item in problem.what.ko
    assert "enable_cdi is false" in problem.what.en and "enable_cdi = true" in problem.fix.ko
    assert reading.facts["cdi_probe"]["arrived"] == [] and reading.facts["left"] == []
