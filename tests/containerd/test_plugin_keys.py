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
