"""What containerd 1.6.20 itself reads of the configs in tests/fixtures/wild/, next to the runbook's verdicts
(tests/containerd/test_wild_configs.py): a relative import glob it expands from its working directory, inline tables it
reads like [section] tables, and a version-3 config it silently drops."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import finished_run

from paths import FIXTURES
from runbook_lib.containerd.ask import containerd_version
from runbook_lib.containerd.verify import containerd_reading
from runbook_lib.engine.run import Run

WILD = FIXTURES / "wild"
CONFIG = "etc/containerd/config.toml"
REGISTRY = "etc/containerd/conf.d/10-registry.toml"


def _root(tmp_path: Path, config: str, files: dict[str, str] | None = None) -> Path:
    root = tmp_path / "root"
    for rel, text in {CONFIG: config, **(files or {})}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _run(root: Path, **params) -> Run:
    return finished_run(root, **params)


def _old_glob_rule(binary: str) -> bool:
    """containerd before 1.6.29 / 1.7.16 expands a relative glob from its working directory (0f2068a70)."""
    m = re.match(r"v?(\d+)\.(\d+)\.(\d+)", containerd_version(binary))
    return bool(m) and tuple(map(int, m.groups())) < ((1, 6, 29) if m.group(2) == "6" else (1, 7, 16))


def test_containerd_reads_a_relative_glob_only_when_the_runbook_says_it_does(containerd, tmp_path):
    registry = (WILD / "relative-glob/conf.d/10-registry.toml").read_text()
    relative = _root(tmp_path / "rel", (WILD / "relative-glob/config.toml").read_text(), {REGISTRY: registry})
    seen = containerd_reading(containerd, relative / CONFIG, relative, "nvidia")
    if not _old_glob_rule(containerd):
        pytest.skip(f"containerd {containerd_version(containerd)} reads relative globs from the config's folder")
    assert seen["imports"] == ["/" + CONFIG]  # conf.d/10-registry.toml is not read at all
    absolute = _root(tmp_path / "abs", (WILD / "relative-glob/config.toml").read_text()
                     .replace('"conf.d/*.toml"', '"/etc/containerd/conf.d/*.toml"'), {REGISTRY: registry})
    assert "/" + REGISTRY in containerd_reading(containerd, absolute / CONFIG, absolute, "nvidia")["imports"]
    # and the runbook's apply with the absolute path is what containerd then reads
    rb = _run(absolute, containerd_bin=containerd)
    assert rb.ok(), [p.what.en for r in rb.results.values() for p in r.problems]
    got = containerd_reading(containerd, absolute / CONFIG, absolute, "nvidia")
    assert got["runtime"]["options"]["BinaryName"] == "/usr/bin/nvidia-container-runtime"
    assert {"runc", "nvidia"} <= set(got["runtime_names"])


def test_containerd_reads_inline_tables_like_sections(every_containerd, tmp_path):
    """The inline-table refusal is about where the runbook can write, not about validity: containerd reads it."""
    containerd = every_containerd
    root = _root(tmp_path, (WILD / "inline-runtimes.toml").read_text())
    got = containerd_reading(containerd, root / CONFIG, root, "runc")
    assert got["runtime"]["options"]["SystemdCgroup"] is True and got["runtime_names"] == ["runc"]


def test_dotted_options_applied_are_what_containerd_reads(every_containerd, tmp_path):
    containerd = every_containerd
    root = _root(tmp_path, (WILD / "dotted-options-nvidia.toml").read_text())
    rb = _run(root, containerd_bin=containerd)
    assert rb.ok(), [p.what.en for r in rb.results.values() for p in r.problems]
    got = containerd_reading(containerd, root / CONFIG, root, "nvidia")
    assert got["runtime"]["options"] == {"BinaryName": "/usr/bin/nvidia-container-runtime", "SystemdCgroup": True}


def test_a_version_3_config_under_containerd_1_is_refused_before_writing(containerd, tmp_path):
    """containerd 1.x drops version 3's CRI tables without a word: apply refuses at step 2 (the version line),
    check mode says the same, and step 9 names the version as the cause, not "a misplaced table"."""
    if not containerd_version(containerd).lstrip("v").startswith("1."):
        pytest.skip("needs containerd 1.x")
    root = _root(tmp_path, (FIXTURES / "containerd/containerd-2.0-docs-config-v3.toml").read_text())
    before = sorted((p, p.read_bytes()) for p in root.rglob("*") if p.is_file())
    rb = _run(root, containerd_bin=containerd)
    codes = [p.code for _, p in rb.refusals()]
    assert codes == ["config.version_newer_than_containerd"], codes
    refusal = rb.refusals()[0][1]
    assert refusal.line == 8 and "version 2" in refusal.fix.en and "version 2" in refusal.fix.ko
    assert sorted((p, p.read_bytes()) for p in root.rglob("*") if p.is_file() and "run/lock" not in str(p)) == before
    check = _run(root, mode="check", containerd_bin=containerd)
    assert "config.version_newer_than_containerd" in [p.code for p in check.results["runtime"].problems]
    nine = [p.code for p in check.results["containerd"].problems]
    assert nine[0] == "containerd.reads.version_unknown" and "containerd.reads.runtime_missing" not in nine, nine


K3S = "var/lib/rancher/k3s/agent/etc/containerd"


def test_on_a_k3s_template_containerd_is_read_again_after_the_restart(containerd, tmp_path):
    """k3s writes config.toml from config.toml.tmpl at its next start only: right after apply, containerd's
    `config dump` of the generated file has no nvidia yet, which step 9 says as a pending restart (a warning),
    not as "containerd dropped the table". Rendered as k3s does, containerd then reads it."""
    from runbook_lib.containerd.distro.render import render_rancher_template
    generated = (FIXTURES / "distro/k3s-v2/config.toml").read_text()
    root = _root(tmp_path, "", {f"{K3S}/config.toml": generated, f"{K3S}/config.toml.tmpl": '{{ template "base" . }}\n'})
    (root / CONFIG).unlink()
    rb = _run(root, containerd_bin=containerd)
    assert rb.ok(), [p.what.en for r in rb.results.values() for p in r.problems if p.is_error]
    nine = rb.results["containerd"].problems
    assert [(p.code, p.is_error) for p in nine] == [("containerd.reads.not_regenerated", False)]
    assert "systemctl restart k3s" in nine[0].fix.en and nine[0].fix.ko
    # k3s restarts: the generated file is the template's rendering
    template = (root / K3S / "config.toml.tmpl").read_text()
    (root / K3S / "config.toml").write_text(render_rancher_template(template, generated))
    check = _run(root, mode="check", containerd_bin=containerd)
    assert check.ok() and check.results["containerd"].problems == [], [p.what.en for p in check.results["containerd"].problems]
    got = containerd_reading(containerd, root / K3S / "config.toml", root, "nvidia")
    assert got["runtime"]["options"]["BinaryName"] == "/usr/bin/nvidia-container-runtime"
