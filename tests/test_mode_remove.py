"""mode=remove takes out exactly what the runbook added (issue 14): the config comes back byte for byte, the
toolkit files and the minimal CDI spec it wrote go (kept as backups), a file a person wrote stays, a second run
changes nothing, and the same holds through papermill."""

import pytest

from grading_helpers import run_all
from helpers import FIXTURES, run_notebook, tree_state

CONFIG = "etc/containerd/config.toml"
TOOLKIT = "root/toolkit"


def _applied(tmp_path, layout="inplace"):
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    original = (FIXTURES / "containerd-1.6.20-default.toml").read_bytes()
    (root / CONFIG).write_bytes(original)
    assert not any(r.failed for r in run_all(root, layout=layout).values())
    return root, original


def _remove(root, **params):
    from runbook_lib.params import validate
    from runbook_lib.run import Run
    rb = Run(validate(root=str(root), mode="remove", **params)).start()
    try:
        return rb.run_all()
    finally:
        rb.finish()


@pytest.mark.parametrize("layout", ["inplace", "dropin"])
def test_remove_gives_the_original_config_back_and_is_idempotent(tmp_path, layout):
    root, original = _applied(tmp_path, layout)
    results = _remove(root, layout=layout)
    assert results["remove"].status == "changed" and not results["remove"].failed, results["remove"].text()
    assert (root / CONFIG).read_bytes() == original
    assert not (root / "etc/containerd/conf.d/99-nvidia.toml").exists()
    for name in ("default.txt", "parsed.txt", "cdi-keys.txt", "runtimeclass.yaml", "report.txt"):
        assert not (root / TOOLKIT / name).exists(), name
        assert list((root / TOOLKIT).glob(f"{name}.runbook-backup-*")), f"{name} is kept as a backup"
    assert not (root / "etc/cdi/nvidia.yaml").exists()
    before = tree_state(root)
    again = _remove(root, layout=layout)
    assert again["remove"].status == "unchanged" and not again["remove"].failed
    assert {k: v for k, v in tree_state(root).items() if not k.startswith("run")} == \
        {k: v for k, v in before.items() if not k.startswith("run")}


def test_remove_keeps_what_a_person_wrote(tmp_path):
    root, _ = _applied(tmp_path)
    (root / TOOLKIT / "report.txt").write_text("my own notes\n")
    _remove(root)
    assert (root / TOOLKIT / "report.txt").read_text() == "my own notes\n"


def test_remove_through_papermill(tmp_path):
    root, original = _applied(tmp_path)
    run_notebook(root, tmp_path / "removed.ipynb", mode="remove")
    assert (root / CONFIG).read_bytes() == original

