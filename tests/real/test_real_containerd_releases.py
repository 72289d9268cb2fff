"""What each containerd release reads is the release's own word: runbook_lib/data/containerd-releases.json is made
again from the installed binaries (tools/containerd_releases.py) and must be the committed data, byte for byte; a
pinned containerd that knows a runtime key, a plugin or a config version the data lacks fails here. And the verdicts
that read it, held against the real programs: containerd 2.4.2's own default passes, a key the node's containerd
drops is said with that containerd's version at its own line, and the new runtime copies only what containerd keeps."""
from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import realenv
from runbook_lib.containerd.verify import runtimes_table
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import containerd_releases  # noqa: E402

DEFAULT_2_4 = ROOT / "tests" / "fixtures" / "containerd" / "containerd-2.4.2-default.toml"
CONFIG = "etc/containerd/config.toml"
WARNED = re.compile(r'msg="Ignoring unknown key in TOML for plugin".*?key="containerd runtimes ([^ "]+) ([^"]+)"')


def _every_release() -> None:
    for label in realenv.containerd_labels():
        realenv.need_containerd(label)


def test_the_data_is_what_the_installed_containerd_releases_say():
    _every_release()
    made = containerd_releases.render(containerd_releases.collect())
    assert made == containerd_releases.DATA_FILE.read_text(), \
        "a pinned containerd reads otherwise than the data: run .venv/bin/python tools/containerd_releases.py"


def test_the_data_names_every_pinned_release():
    _every_release()
    found = [containerd_releases.release(b) for b in containerd_releases.binaries().values()]
    data = containerd_releases.json.loads(containerd_releases.DATA_FILE.read_text())
    assert sorted(data["releases"]) == sorted(found)


def test_the_2_4_default_fixture_is_containerd_2_4_2_s_own():
    binary = realenv.need_containerd("2.4.2")
    out = subprocess.run([binary, "config", "default"], capture_output=True, text=True, timeout=60, check=True).stdout
    assert out == DEFAULT_2_4.read_text()


def _root(tmp_path: Path, text: str) -> Path:
    root = tmp_path / "root"
    (root / CONFIG).parent.mkdir(parents=True)
    (root / CONFIG).write_text(text)
    return root


def _run(root: Path, mode: str, containerd_bin: str = "") -> Run:
    rb = Run(validate(root=str(root), mode=mode, containerd_bin=containerd_bin, default_runtime="keep")).start()
    try:
        rb.run_all()
    finally:
        rb.finish()
    return rb


def _failed(rb: Run) -> list[str]:
    return [p.code for _, p in rb.refusals()] + sorted({p.code for r in rb.results.values() for p in r.problems if p.is_error})


def _read(binary: str, root: Path) -> tuple[dict, list[tuple[str, str]]]:
    """containerd's reading of the config (one `config dump`): the runtimes it reads, and (runtime, key) of each
    runtime-table key it warns it ignores."""
    proc = subprocess.run([binary, "--config", str(root / CONFIG), "config", "dump"], capture_output=True, text=True,
                          timeout=60, check=True)
    return runtimes_table(tomllib.loads(proc.stdout))["runtimes"], sorted(WARNED.findall(proc.stderr))


def _warned(binary: str, root: Path) -> list[tuple[str, str]]:
    return _read(binary, root)[1]


READS_V4 = ["2.3.4", "2.4.2"]


@pytest.mark.parametrize("asked", ["", *READS_V4], ids=["no-containerd", *READS_V4])
def test_containerd_2_4_s_own_default_with_systemd_cgroup_passes(tmp_path, asked):
    """The first step of every install guide: `containerd config default` of 2.4.2, SystemdCgroup = true. Its
    disable_pause_image_pull is 2.4's (2.3.4 drops it with a warning): nothing to fix, and nvidia gets it only
    where the containerd asked keeps it."""
    binaries = {label: realenv.need_containerd(label) for label in READS_V4}
    text = DEFAULT_2_4.read_text().replace("SystemdCgroup = false", "SystemdCgroup = true")
    root = _root(tmp_path, text)
    before = {label: _warned(b, root) for label, b in binaries.items()}
    rb = _run(root, "apply", str(binaries[asked]) if asked else "")
    assert _failed(rb) == []
    assert _failed(_run(root, "check", str(binaries[asked]) if asked else "")) == []
    for label, binary in binaries.items():
        runtimes, warned = _read(binary, root)
        assert runtimes["nvidia"]["options"]["BinaryName"] == "/usr/bin/nvidia-container-runtime"
        added = [w for w in warned if w not in before[label]]
        if label == (asked or "2.4.2"):  # the containerd asked, or with none the one whose default it is
            assert added == [], label
        else:  # another release may drop what the one asked keeps, as it drops it of runc: never anything more
            assert {key for _, key in added} <= {key for name, key in before[label] if name == "runc"}, label


def _v4_with_nvidia_key(key_line: str) -> str:
    return ("version = 4\n[plugins.'io.containerd.cri.v1.runtime'.containerd]\n  default_runtime_name = 'runc'\n"
            "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]\n  runtime_type = 'io.containerd.runc.v2'\n"
            "[plugins.'io.containerd.differ.v1.erofs']\n  disable_pause_image_pull = true\n"
            "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.nvidia]\n  runtime_type = 'io.containerd.runc.v2'\n"
            f"  {key_line}\n"
            "  [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.nvidia.options]\n"
            "    BinaryName = '/usr/bin/nvidia-container-runtime'\n    SystemdCgroup = true\n")


def test_a_key_the_node_s_containerd_drops_is_said_with_its_version_at_its_own_line(tmp_path):
    """2.3.4 drops disable_pause_image_pull (and warns): asked, it is the finding, at the line in nvidia's table (not
    the same name under differ.v1.erofs above it). 2.4.2 keeps it; with no containerd to ask, 2.4.2 reads version 4."""
    text = _v4_with_nvidia_key("disable_pause_image_pull = true")
    line = text.splitlines().index("  disable_pause_image_pull = true", 8) + 1
    root = _root(tmp_path, text)
    c234, c242 = realenv.need_containerd("2.3.4"), realenv.need_containerd("2.4.2")
    assert ("nvidia", "disable_pause_image_pull") in _warned(c234, root)
    found = [p for r in _run(root, "check", str(c234)).results.values() for p in r.problems if p.code.startswith("runtime.unknown_key")]
    assert [(p.values["key"], p.line, p.values["who"]) for p in found] == [("disable_pause_image_pull", line, "containerd 2.3.4")]
    for asked in (str(c242), ""):
        assert [p.code for r in _run(root, "check", asked).results.values() for p in r.problems
                if p.code.startswith("runtime.")] == []


@pytest.mark.parametrize("label", realenv.containerd_labels())
def test_the_new_runtime_copies_only_what_the_node_s_containerd_keeps(tmp_path, label):
    """runc's table with a typo (BynaryName) and 1.x's runtime_engine / runtime_root: the new nvidia table copies the
    keys the asked containerd keeps, so containerd warns of nothing in it (2.x) and reads every key it has (1.6)."""
    binary = realenv.need_containerd(label)
    root = _root(tmp_path, 'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd]\n  default_runtime_name = "runc"\n'
                           '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n'
                           '  runtime_type = "io.containerd.runc.v2"\n  runtime_engine = "/usr/bin/engine"\n'
                           '  runtime_root = "/run/probe"\n  BynaryName = "/usr/bin/runc"\n  privileged_without_host_devices = true\n'
                           '  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\n    SystemdCgroup = true\n')
    rb = _run(root, "apply", binary)
    assert _failed(rb) == []
    written = tomllib.loads((root / CONFIG).read_text())["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]["nvidia"]
    runtimes, warned = _read(binary, root)
    read = runtimes["nvidia"]
    assert "BynaryName" not in written and written["privileged_without_host_devices"] is True
    assert [w for w in warned if w[0] == "nvidia"] == []
    assert set(written) - {"options"} <= set(read)
    assert ("runtime_engine" in written) is (not binary.is_2x)


@pytest.mark.parametrize("value, said", [('""', False), ('"/usr/bin/engine"', True)], ids=["empty", "set"])
def test_1_x_s_runtime_engine_under_2_x_is_said_only_when_dropping_it_changes_something(tmp_path, value, said):
    """A DGX node's nvidia table copied from 1.6's default keeps runtime_engine = "": 2.4.2 drops it (and warns),
    which changes nothing, so it is no finding; set to a program, it is, named with 2.4.2."""
    binary = realenv.need_containerd("2.4.2")
    text = ('version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n  runtime_type = "io.containerd.runc.v2"\n'
            '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n  runtime_type = "io.containerd.runc.v2"\n'
            f'  runtime_engine = {value}\n'
            '  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]\n'
            '    BinaryName = "/usr/bin/nvidia-container-runtime"\n    SystemdCgroup = true\n')
    root = _root(tmp_path, text)
    assert ("nvidia", "runtime_engine") in _warned(binary, root)
    found = [(p.values["key"], p.line, p.values["who"]) for r in _run(root, "check", binary).results.values()
             for p in r.problems if p.code.startswith("runtime.unknown_key")]
    assert found == ([("runtime_engine", 6, "containerd 2.4.2")] if said else [])
