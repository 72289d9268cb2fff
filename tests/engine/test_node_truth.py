"""Issue 51 on a node, through the user's own command (plain papermill, `-p profile node`): every status comes
from the node's files as they are after the run (check mode: as found), never from the plan; the nvidia runtime
gets the default runtime's cgroup driver as containerd reads it (systemd_cgroup auto); and a setting is judged by
its value as containerd reads it (a SystemdCgroup left out is false).

The node roots are made from the real containerd default configs the fixtures hold: 1.6.20's (`config default`,
version 2, runc with SystemdCgroup = false), 2.4.2's (version 3, SystemdCgroup = false) and a 2.3 node's version-4
config (SystemdCgroup = true), each with the node's own CDI spec in /var/run/cdi and the device files it names."""

from __future__ import annotations

import hashlib
import json
import tomllib

import pytest

from grading_helpers import papermill, step_records
from helpers import TEST_DATA, finished_run, node_root  # the node: its own CDI spec, and the device files it names

CONFIG = "etc/containerd/config.toml"
DEFAULTS = {
    "containerd-1.6.20": (TEST_DATA / "containerd/containerd-1.6.20-default.toml", False),
    "containerd-2.4.2": (TEST_DATA / "containerd/containerd-2.4.2-default.toml", False),
    "containerd-2.3-v4": (TEST_DATA / "distro/containerd-2.3-config-v4.toml", True),
}
# the steps whose verdict describes the nvidia runtime: 2 its table, 3 its options, 5 the runtimes parsed,
# 7 the RuntimeClass naming it, 8 the report of it
DESCRIBE_NVIDIA = (2, 3, 5, 7, 8)
LAB_WORDS = ("default.txt", "parsed.txt", "report.txt", "cdi-keys.txt", "toolkit")


def _node(tmp_path, config) -> object:
    return node_root(tmp_path / "node", config)


def _tree(root) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(root.rglob("*"))}


def _nvidia(root) -> dict:
    """The nvidia runtime's table as containerd merges the config with its drop-ins (tomllib, each file)."""
    found = {}
    for path in [root / CONFIG] + sorted((root / "etc/containerd/conf.d").glob("*.toml")):
        data = tomllib.loads(path.read_text())
        for plugin in ("io.containerd.grpc.v1.cri", "io.containerd.cri.v1.runtime"):
            table = data.get("plugins", {}).get(plugin, {}).get("containerd", {}).get("runtimes", {}).get("nvidia")
            if table:
                found = table
    return found


@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_check_on_an_unconfigured_node_passes_no_step_that_describes_nvidia(tmp_path, name):
    root = _node(tmp_path, DEFAULTS[name][0])
    before = _tree(root)
    proc = papermill(root, tmp_path / "out.ipynb", "-p", "profile", "node", "-p", "mode", "check")
    assert proc.returncode != 0, "step 2 fails: no nvidia runtime"
    steps = step_records(tmp_path / "out.ipynb")
    assert steps[2]["status"] == "failed"
    for n in DESCRIBE_NVIDIA:
        assert steps[n]["status"] not in ("passed", "unchanged", "changed"), (n, steps[n]["message"])
    for n in (5, 7, 8):  # what they describe is absent: blocked by step 2, said as a fact of the node
        assert steps[n]["status"] == "blocked", (n, steps[n])
        assert [p["code"] for p in steps[n]["problems"]] == ["node.fact.after_earlier_step"]
    assert _tree(root) == before


@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_apply_gives_nvidia_the_default_runtimes_cgroup_driver_as_containerd_reads_it(tmp_path, name):
    config, systemd = DEFAULTS[name]
    root = _node(tmp_path, config)
    proc = papermill(root, tmp_path / "out.ipynb", "-p", "profile", "node")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _nvidia(root)["options"].get("SystemdCgroup", False) is systemd
    steps = step_records(tmp_path / "out.ipynb")
    assert all(p["code"] != "options.systemd_cgroup.differs_from_default" for s in steps.values() for p in s["problems"])
    # the facts of steps 5 and 8 are read from the node after the write, and said so, with no lab answer file
    assert steps[5]["message"]["en"] == "read from the node's files: VERSION=%d, RUNTIMES=%s" % (
        tomllib.loads((root / CONFIG).read_text()).get("version", 1), "runc,nvidia")
    assert f"SYSTEMD_CGROUP={'true' if systemd else 'false'}" in steps[8]["message"]["en"]
    said = json.dumps([steps[n] for n in steps], ensure_ascii=False)
    assert not [w for w in LAB_WORDS if w in said], said[:2000]
    # and check mode after it passes every step, the root byte for byte (run in process: the check only reads
    # the state papermill's apply left; the command's own check is test_check_on_an_unconfigured_node_...'s)
    after = _tree(root)
    rb = finished_run(root, profile="node", mode="check")
    assert rb.ok(), [r.text() for r in rb.failed_steps()]
    assert {r.step: r.status for r in rb.results.values() if r.step in range(1, 9)} == dict.fromkeys(range(1, 9),
                                                                                                     "passed")
    assert _tree(root) == after


def test_a_node_whose_nvidia_leaves_systemdcgroup_out_on_a_cgroupfs_node_is_right(tmp_path):
    """runc.v2, the right BinaryName, no SystemdCgroup key, on a node whose runc says false: containerd reads
    false, the wanted value; check passes it and apply changes nothing."""
    root = _node(tmp_path, DEFAULTS["containerd-1.6.20"][0])
    text = (root / CONFIG).read_text()
    header = '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]'
    assert header in text
    text = text.replace(header, '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n'
                        '          runtime_type = "io.containerd.runc.v2"\n\n'
                        '          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]\n'
                        '            BinaryName = "/usr/bin/nvidia-container-runtime"\n\n        ' + header, 1)
    (root / CONFIG).write_text(text)
    before = _tree(root)
    proc = papermill(root, tmp_path / "check.ipynb", "-p", "profile", "node", "-p", "mode", "check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    steps = step_records(tmp_path / "check.ipynb")
    assert steps[3]["status"] == "passed" and steps[3]["problems"] == []
    rb = finished_run(root, profile="node")  # apply, in process: the point is check's verdict, papermill's above
    assert rb.ok(), [r.text() for r in rb.failed_steps()]
    assert _tree(root) == before


def test_a_cgroup_driver_other_than_the_default_runtimes_is_a_finding_on_a_node(tmp_path):
    """Asked outright for the systemd driver on a node whose runc uses cgroupfs: the run writes what it was asked,
    and says that the two runtimes disagree."""
    root = _node(tmp_path, DEFAULTS["containerd-2.4.2"][0])
    proc = papermill(root, tmp_path / "out.ipynb", "-p", "profile", "node", "-p", "systemd_cgroup", "True")
    steps = step_records(tmp_path / "out.ipynb")
    assert "options.systemd_cgroup.differs_from_default" in [p["code"] for p in steps[3]["problems"]]
    assert _nvidia(root)["options"]["SystemdCgroup"] is True
    # in the terminal too, under its step and counted in the result line
    warned = [line for line in proc.stdout.splitlines() if line.lstrip().startswith("! ")]
    assert len(warned) == 1 and "SystemdCgroup (true) disagrees with the default runtime runc's (false)" in warned[0]
    result = [line for line in proc.stdout.splitlines() if line.startswith("결과 / result:")]
    assert result and "1 warning (the ! line above)" in result[-1], proc.stdout
