"""The engine's rules (runbook_lib/engine/run.py) that mutation testing (`make mutate`) found no test for.

- Only a failed apply run withdraws report.txt: a check run and a refused run write nothing, and a root with no
  report has nothing to withdraw.
- ``effective_with`` is the config containerd would read with the given changes over what is planned so far;
  outside a preflight nothing is planned, so it is the disk's config with the changes.
"""

from __future__ import annotations

import tomllib

from grading_helpers import CONFIG, TOOLKIT, broken, lab_root
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run

REPORT = f"{TOOLKIT}/report.txt"


def _withdrawn(root, **params):
    rb = Run(validate(root=str(root), **params)).start()
    try:
        rb.preflight()
        return rb, rb.withdraw_report()
    finally:
        rb.finish()


def test_a_check_run_withdraws_no_report(tmp_path):
    root = lab_root(tmp_path, broken("systemdcgroup-string.toml"))  # a run that fails, on a root with a report
    before = (root / REPORT).read_bytes()
    _, withdrawn = _withdrawn(root, mode="check")
    assert withdrawn is None
    assert (root / REPORT).read_bytes() == before
    assert not [p.name for p in (root / TOOLKIT).iterdir() if ".runbook-backup-" in p.name]


def test_a_refused_apply_run_withdraws_no_report(tmp_path):
    root = lab_root(tmp_path, broken("toml-syntax-error.toml"))  # refused before its first write
    before = (root / REPORT).read_bytes()
    rb, withdrawn = _withdrawn(root)
    assert rb.refused
    assert withdrawn is None
    assert (root / REPORT).read_bytes() == before


def test_a_failed_apply_run_on_a_root_without_a_report_has_none_to_withdraw(tmp_path):
    root = lab_root(tmp_path, broken("systemdcgroup-string.toml"))
    (root / REPORT).unlink()
    rb, withdrawn = _withdrawn(root)
    assert not rb.refused
    assert withdrawn is None
    assert not (root / REPORT).exists()


def test_a_failed_apply_run_withdraws_the_report_it_finds_and_keeps_its_bytes(tmp_path):
    root = lab_root(tmp_path, broken("systemdcgroup-string.toml"))
    before = (root / REPORT).read_bytes()
    _, withdrawn = _withdrawn(root)
    assert withdrawn is not None and ".runbook-backup-" in withdrawn
    assert not (root / REPORT).exists()
    assert (root / withdrawn.lstrip("/")).read_bytes() == before


def test_effective_with_outside_a_preflight_is_the_disks_config_with_the_changes(tmp_path):
    root = lab_root(tmp_path)
    rb = Run(validate(root=str(root)))
    text = (root / CONFIG).read_text()
    assert "nvidia-changed" not in text
    changed = text.replace("[plugins", '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia-changed]\n'
                           '  runtime_type = "io.containerd.runc.v2"\n\n[plugins', 1)
    tomllib.loads(changed)  # still one TOML document
    eff = rb.effective_with({"/" + CONFIG: changed.encode()})
    runtimes = eff.data["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]
    assert "nvidia-changed" in runtimes and "nvidia" in runtimes
    assert "nvidia-changed" not in (root / CONFIG).read_text()  # asked, not written
