"""A version-1 plugin name outside the runtime tables (e.g. [plugins.cri.registry...]) in a version-2 file:
containerd 1.6 refuses the whole file (tests/real pins it); check mode says so, apply mode stops."""

from helpers import LAB_BASE
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run
from helpers import run_numbered


def root_with(tmp_path, text):
    (tmp_path / "etc/containerd").mkdir(parents=True)
    (tmp_path / "etc/containerd/config.toml").write_text(text)
    return tmp_path


def test_v1_registry_table_in_v2_file_is_diagnosed(tmp_path):
    text = LAB_BASE.read_text() + '\n[plugins.cri.registry.mirrors."docker.io"]\n  endpoint = ["https://mirror.local"]\n'
    root = root_with(tmp_path, text)
    before = (root / "etc/containerd/config.toml").read_bytes()
    rb = Run(validate(root=str(root))).start()
    r = run_numbered(rb, (1, 2))
    step2 = r[1]
    assert step2.failed
    prob = next(p for p in step2.problems if '"cri"' in p.what.en)
    assert prob.line == len(LAB_BASE.read_text().splitlines()) + 2
    assert 'plugins."io.containerd.grpc.v1.cri"' in prob.fix.en and "invalid plugin key URI" in prob.what.en
    assert (root / "etc/containerd/config.toml").read_bytes() == before  # apply stopped, nothing written


def test_correct_config_has_no_plugin_key_problem(tmp_path):
    root = root_with(tmp_path, LAB_BASE.read_text())
    rb = Run(validate(root=str(root))).start()
    assert not any(r.failed for r in run_numbered(rb, (1, 2)))


GVISOR_V1 = 'disabled_plugins = ["restart"]\n[plugins.linux]\n  shim_debug = true\n' \
            '[plugins.cri.containerd.runtimes.runsc]\n  runtime_type = "io.containerd.runsc.v1"\n'
V3 = 'version = 3\nimports = ["/etc/containerd/conf.d/*.toml"]\n' \
     "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]\n  runtime_type = 'io.containerd.runc.v2'\n" \
     "  [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]\n    SystemdCgroup = true\n"


def test_a_version_1_drop_in_under_a_version_3_config_is_judged_by_its_own_version(tmp_path):
    """gVisor's version-1 snippet in conf.d under a version-3 config: containerd 2.x migrates the drop-in on its
    own (its `linux` and `cri` are plugin IDs there), so neither 1.6's words nor a v1 plugin's URI is a fix, and the
    runtime goes into config.toml (tests/real/test_real_realworld.py: gvisor-v1-dropin, by 2.2.9, 2.3.4, 2.4.2)."""
    root = root_with(tmp_path, V3)
    (root / "etc/containerd/conf.d").mkdir()
    (root / "etc/containerd/conf.d/runsc.toml").write_text(GVISOR_V1)
    rb = Run(validate(root=str(root), mode="apply", default_runtime="keep")).start()
    r = run_numbered(rb, (1, 2))
    assert [p.code for p in r[1].problems] == [] and not r[1].failed
    assert "nvidia" in (root / "etc/containerd/config.toml").read_text()
    assert (root / "etc/containerd/conf.d/runsc.toml").read_text() == GVISOR_V1


def test_a_plugin_id_in_a_version_3_drop_in_is_still_said(tmp_path):
    """The drop-in's own version is 3: its `cri` is no plugin URI there (containerd reads no such plugin)."""
    root = root_with(tmp_path, V3)
    (root / "etc/containerd/conf.d").mkdir()
    (root / "etc/containerd/conf.d/cri.toml").write_text("version = 3\n" + GVISOR_V1)
    rb = Run(validate(root=str(root), mode="check", default_runtime="keep")).start()
    r = run_numbered(rb, (1, 2))
    assert sorted(p.values["key"] for p in r[1].problems if p.code == "config.plugin_key_v1_name") == ["cri", "linux"]
