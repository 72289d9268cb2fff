"""mode=remove (runbook_lib/containerd/remove.py): exactly what the runbook added comes out, nothing else;
apply then remove gives back every shared fixture byte for byte in both layouts, containerd 1.6 reads the
result, a second removal changes nothing, and another owner's runtime or drop-in is kept."""

import pytest

from distro_helpers import NVIDIA, containerd_reads, distro_fixture
from helpers import tree_state
from layouts import CONFIG, DROPIN, FIXTURE_VERSIONS, fixture, make_root, run_steps
from runbook_lib.containerd.dropin import add_import
from runbook_lib.containerd.edit import RuntimeWanted
from runbook_lib.containerd.load import load_toml
from runbook_lib.containerd.remove import commit_remove, confirm_removed, plan_remove, remove_import
from runbook_lib.fs.target import Target

WANTED = RuntimeWanted("nvidia", NVIDIA, True)
MAIN = "/" + CONFIG


def configs(root):
    """Every file under etc/ but the backups: content and mode (mtimes change with any write)."""
    return {p: s[:3] for p, s in tree_state(root / "etc").items() if ".runbook-backup-" not in p and s[0] == "file"}


@pytest.mark.parametrize("layout", ["inplace", "dropin"])
@pytest.mark.parametrize("name", FIXTURE_VERSIONS)
def test_apply_then_remove_gives_back_the_original_byte_for_byte(tmp_path, name, layout):
    original = fixture(name).read_bytes()
    root = make_root(tmp_path, original)
    before = configs(root)
    assert run_steps(root, steps=[1, 2], layout=layout).ok()
    target = Target(str(root))
    plan = plan_remove(target, MAIN, WANTED)
    assert plan.changed and not plan.kept and "-" in plan.diff
    commit_remove(target, plan)
    assert (root / CONFIG).read_bytes() == original
    assert not (root / DROPIN).exists()
    assert confirm_removed(target, MAIN, WANTED) == []
    assert configs(root) == before  # the drop-in folder may stay, empty: nothing else differs
    backups = [p for p in (root / "etc/containerd").rglob("*.runbook-backup-*")]
    assert backups  # every removal kept what it replaced
    again = plan_remove(target, MAIN, WANTED)  # idempotent
    assert not again.changed and "nothing to remove" in again.notes[-1].en
    if FIXTURE_VERSIONS[name] < 3:  # containerd 1.6 reads versions 1 and 2 only
        seen = containerd_reads(root, runtime="nvidia")
        assert seen["runtime"] is None and "nvidia" not in seen["runtime_names"]


def test_another_owners_runtime_and_dropin_are_kept(tmp_path):
    main = 'version = 2\nimports = ["/etc/containerd/conf.d/*.toml"]\n'
    operator = distro_fixture("gpu-operator-nvidia-runtime.toml")
    site = "# written by the site\nversion = 2\n"
    root = make_root(tmp_path, main.encode(), {"etc/containerd/conf.d/50-operator.toml": operator,
                                               "etc/containerd/conf.d/99-nvidia.toml": site})
    state = tree_state(root)
    plan = plan_remove(Target(str(root)), MAIN, WANTED)
    assert not plan.changed and len(plan.kept) == 2
    assert any("/usr/local/nvidia/toolkit" in k.en for k in plan.kept)
    assert any("no runbook mark" in k.en for k in plan.kept)
    commit_remove(Target(str(root)), plan)
    assert tree_state(root) == state


@pytest.mark.parametrize("before", [
    "version = 2\n\n[grpc]\n",
    "# head\n[grpc]\n",
    'imports = []\nversion = 2\n',
    'imports = ["/a.toml"]  # site\n',
    'imports = [\n  "/a.toml"\n]\n',
    "version = 3\n[plugins.'a']\n  x = 'y'\n",
    'imports = ["/a.toml", "/b.toml"]\n',
])
def test_the_imports_entry_comes_out_as_add_import_put_it_in(before):
    added = add_import(load_toml(before.encode(), "/c.toml"), "/x.toml")
    assert remove_import(load_toml(added.encode(), "/c.toml"), "/x.toml") == before
