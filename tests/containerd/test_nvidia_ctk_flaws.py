"""The eight flaws of `nvidia-ctk runtime configure` (tests/fixtures/conformance/nvidia-ctk/README.md), one test
each, showing the runbook does not have them."""

import difflib
import os

import pytest

from helpers import tree_state
from layouts import CASES, CONFIG, DROPIN, containerd_sees, effective, make_root, run_steps, runtimes, toml
from runbook_lib.engine.result import FAILED

CASE = {c.name: c for c in CASES}
V1 = CASE["d2_v1_explicit"] / "input.toml"
V2 = CASE["a_v2_minimal"] / "input.toml"
V3 = CASE["c_v3_toolkit-test"] / "input.toml"
COMMENTS = CASE["f_v2_comments"] / "input.toml"
CRI_V2 = '[plugins."io.containerd.grpc.v1.cri".containerd]'


def problems(rb, n):
    return [p.what.en for p in rb.results[rb.steps[n - 1].id].problems]  # the lab's step n


def test_flaw1_a_v1_config_in_dropin_layout_is_imported_and_effective(tmp_path):
    root = make_root(tmp_path, V1)
    assert run_steps(root, layout="dropin").ok()
    assert toml(root, CONFIG)["imports"] == ["/etc/containerd/conf.d/99-nvidia.toml"]
    assert toml(root, DROPIN)["version"] == 1      # a v2 drop-in would make containerd 1.x ignore plugins.cri
    eff = effective(root)
    assert "/etc/containerd/conf.d/99-nvidia.toml" in [f.lab_path for f in eff.files]
    assert runtimes(root)["nvidia"]["options"]["BinaryName"] == "/usr/bin/nvidia-container-runtime"
    assert containerd_sees(root)["runtime"]["options"]["BinaryName"] == "/usr/bin/nvidia-container-runtime"


@pytest.mark.parametrize("src", [V2, V3], ids=["v2", "v3"])
def test_flaw2_inplace_never_imports_itself(tmp_path, src):
    root = make_root(tmp_path, src)
    assert run_steps(root, layout="inplace").ok()
    assert "imports" not in toml(root, CONFIG) and not (root / "etc/containerd/conf.d").exists()
    assert [f.lab_path for f in effective(root).files] == ["/" + CONFIG]
    assert "nvidia" in runtimes(root)


@pytest.mark.parametrize("layout", ["inplace", "dropin"])
def test_flaw3_no_version_line_with_v2_tables_stops_clearly(tmp_path, layout):
    text = V2.read_text().replace("version = 2\n", "")
    root = make_root(tmp_path, text.encode())
    rb = run_steps(root, steps=[1, 2], layout=layout)
    assert rb.results["runtime"].status == FAILED
    (found,) = [p for p in rb.results["runtime"].problems if "version line" in p.what.en]
    assert "version = 2" in found.fix.en and "version = 2" in found.fix.ko and found.line == 1
    assert (root / CONFIG).read_text() == text and not (root / DROPIN).exists()


@pytest.mark.parametrize("layout", ["inplace", "dropin"])
def test_flaw4_comments_order_and_quotes_are_kept(tmp_path, layout):
    old = COMMENTS.read_text().splitlines()
    root = make_root(tmp_path, COMMENTS)
    assert run_steps(root, layout=layout).ok()
    new = (root / CONFIG).read_text().splitlines()
    ops = difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
    assert all(tag in ("equal", "insert") for tag, *_ in ops), "an existing line changed or moved"
    added = [line for tag, _, _, j1, j2 in ops if tag == "insert" for line in new[j1:j2]]
    if layout == "dropin":
        assert added == ['imports = ["/etc/containerd/conf.d/99-nvidia.toml"]']
    else:
        assert any("runtimes.nvidia]" in line for line in added)
        assert "      pod_annotations = [\"io.kubernetes.cri-o.*\"]" in added  # copied from runc, as runc writes it


@pytest.mark.parametrize("layout", ["inplace", "dropin"])
def test_flaw5_runtimes_in_an_imported_file_are_kept(tmp_path, layout):
    main = 'version = 2\nimports = ["/etc/containerd/conf.d/10-runtimes.toml"]\n'
    site = (f'version = 2\n\n{CRI_V2}\n  default_runtime_name = "runc"\n\n'
            '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n  runtime_type = "io.containerd.runc.v2"\n\n'
            '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.crun]\n  runtime_type = "io.containerd.runc.v2"\n')
    root = make_root(tmp_path, main.encode(), {"etc/containerd/conf.d/10-runtimes.toml": site})
    assert run_steps(root, layout=layout).ok()
    assert sorted(runtimes(root)) == ["crun", "nvidia", "runc"]
    seen = containerd_sees(root)
    assert seen["runtime_names"] == ["crun", "nvidia", "runc"] and seen["default_runtime_name"] == "runc"


@pytest.mark.parametrize("layout", ["inplace", "dropin"])
def test_flaw6_a_node_where_nvidia_was_the_default_keeps_it_and_is_told(tmp_path, layout):
    text = V2.read_text().replace('default_runtime_name = "runc"', 'default_runtime_name = "nvidia"') + (
        '\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n  runtime_type = "io.containerd.runc.v2"\n'
        '\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]\n'
        '  BinaryName = "/usr/bin/nvidia-container-runtime"\n  SystemdCgroup = true\n')
    root = make_root(tmp_path, text.encode())
    rb = run_steps(root, layout=layout)
    assert (root / CONFIG).read_text() == text and not (root / DROPIN).exists()
    assert rb.results["default"].status == FAILED
    p = rb.results["default"].problems[0]
    assert "default_runtime_name" in p.what.en and "default_runtime_name" in p.what.ko and p.line is not None
    assert "runc" in p.fix.en and "RuntimeClass" in p.fix.ko + (p.why.ko if p.why else "")


@pytest.mark.parametrize("layout", ["inplace", "dropin"])
def test_flaw7_cri_in_disabled_plugins_is_a_failure(tmp_path, layout):
    text = 'disabled_plugins = ["io.containerd.grpc.v1.cri"]\n' + V2.read_text()
    root = make_root(tmp_path, text.encode())
    rb = run_steps(root, layout=layout)
    assert not rb.ok() and rb.results["runtime"].status == FAILED
    assert any("disabled_plugins" in w for w in problems(rb, 2))
    assert (root / CONFIG).read_text() == text and not (root / DROPIN).exists()


@pytest.mark.parametrize("layout", ["inplace", "dropin"])
def test_flaw8_atomic_replace_with_a_backup_of_the_original(tmp_path, layout):
    root = make_root(tmp_path, V2)
    config = root / CONFIG
    original, inode = config.read_bytes(), config.stat().st_ino
    run_steps(root, layout=layout)
    assert config.stat().st_ino != inode            # a new file renamed over the old one, never rewritten in place
    (backup,) = [p for p in config.parent.iterdir() if p.name.startswith("config.toml.runbook-backup-")]
    assert backup.read_bytes() == original
    if layout == "dropin":                           # the drop-in too, once it changes
        drop = root / DROPIN
        first, drop_inode = drop.read_bytes(), drop.stat().st_ino
        # (another BinaryName would be another owner's runtime, refused: owner.py; the cgroup driver is ours)
        run_steps(root, steps=[2], layout=layout, systemd_cgroup=False)
        assert drop.stat().st_ino != drop_inode
        # the runbook made the drop-in: its record, not a backup, says so (remove deletes it whole)
        assert [p for p in drop.parent.iterdir() if ".runbook-backup-" in p.name] == []
        assert first != drop.read_bytes() and b"SystemdCgroup = false" in drop.read_bytes()
    leftovers = [p for p in tree_state(root) if ".runbook-tmp." in os.path.basename(p)]
    assert leftovers == []
