"""mode=remove says, file by file, what it did (restored, removed, kept and why) and what it left (the backups,
the lock) with the command that undoes or cleans each; the apply steps' cells say once that this mode does not
run them, and a runtime that was never added is not reported as "nothing to remove"."""

from __future__ import annotations

import glob

from helpers import run_notebook


def texts(nb) -> list[str]:
    out = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            t = (o.get("data") or {}).get("text/plain") or o.get("text") or ""
            out.append("".join(t) if isinstance(t, list) else t)
    return out


def test_remove_names_every_file_and_what_it_left(tmp_path):
    from runbook_lib.lab.init_root import finished_lab

    root = tmp_path / "node"
    finished_lab(str(root))
    (root / "root/toolkit/parsed.txt").write_text("VERSION=2\nRUNTIMES=nvidia,runc\n# mine\n")
    nb = run_notebook(root, tmp_path / "out.ipynb", mode="remove")
    shown = texts(nb)
    report = next(t for t in shown if t.startswith("되돌린 결과 / what the removal did"))
    config = root / "etc/containerd/config.toml"  # lab-init's run created it: the runbook's own bytes, no backup
    assert f"restored: {config}." in report and "The runbook created this file, so no backup is kept." in report
    assert glob.glob(f"{config}.runbook-backup-*") == []
    for name in ("default.txt", "cdi-keys.txt", "runtimeclass.yaml", "report.txt"):
        path = root / "root/toolkit" / name
        assert f"removed: {path}, which the runbook created and which held exactly what it wrote" in report
        assert not path.exists()
    assert f"removed: {root / 'etc/cdi/nvidia.yaml'}," in report
    kept = root / "root/toolkit/parsed.txt"
    assert f"kept: {kept}. Its content is not what the runbook writes" in report and kept.exists()
    backups = sorted(glob.glob(f"{root}/**/*.runbook-backup-*", recursive=True))
    assert backups == [] and "backups are left" not in report
    assert "lock file is left" not in report and not (root / "run/lock/nvidia-runtime-runbook.lock").exists()
    everything = "\n".join(shown)
    assert "nothing to remove" not in everything  # the variants never added are not reported
    assert "plan — -." not in everything
