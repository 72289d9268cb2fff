"""One plan, one verdict (issue 12): a run that refuses refuses before its first write, and apply and check
mode judge the same state with the same rules.

- Every refusal kind the runbook has leaves the root byte for byte as it was (the tree is hashed; only the
  lock under run/ may come and go).
- For every state here, the verdict apply gives and the verdict check mode gives on apply's result agree:
  what apply calls passed, check passes, and a warning in one is the same warning in the other.
- The lab's mistakes, alone and combined, each get their own finding in one check run.
"""

from __future__ import annotations

import pytest

from grading_helpers import BROKEN, GOOD, check, failed_steps, good_with, lab_root, run_all
from helpers import FIXTURES, tree_state
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run

CONFIG = "etc/containerd/config.toml"
SPEC = "etc/cdi/nvidia.yaml"
TOOLKIT = "root/toolkit"
GOOD_SPEC = ('cdiVersion: "0.5.0"\nkind: nvidia.com/gpu\ndevices:\n  - name: all\n    containerEdits:\n'
             '      deviceNodes:\n        - path: /dev/nvidia0\n')


def _root(tmp_path, config: bytes | None, files: dict[str, str] | None = None, links: dict[str, str] | None = None):
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    if config is not None:
        (root / CONFIG).write_bytes(config)
    for rel, text in (files or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for rel, to in (links or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).symlink_to(to)
    return root


def _refusing(tmp_path, name: str):
    """(root, the code the refusal must carry) for each kind of refusal the runbook has."""
    good = GOOD.read_bytes()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "config.toml").write_bytes(good)
    cases = {
        "toml-syntax-error": (BROKEN / "toml-syntax-error.toml", {}, {}, "toml.unclosed_quote"),
        "duplicate-key": (BROKEN / "duplicate-key.toml", {}, {}, "toml.duplicate"),
        "default-is-nvidia": (BROKEN / "default-is-nvidia.toml", {}, {}, "default.is_runtime"),
        "cri-disabled": (BROKEN / "cri-disabled.toml", {}, {}, "containerd.cri_disabled"),
        "no-version-line": (BROKEN / "no-version-line-v2-tables.toml", {}, {}, "config.version_missing_v2_tables"),
        "missing-import": (good.replace(b"version = 2\n", b'version = 2\nimports = ["/etc/containerd/gone.toml"]\n', 1),
                           {}, {}, "config.import_missing"),
        "v1-plugin-key": (good + b'\n[plugins.cri.registry.mirrors."docker.io"]\n  endpoint = ["https://m.local"]\n',
                          {}, {}, "config.plugin_key_v1_name"),
        "cdi-not-yaml": (good, {SPEC: 'cdiVersion: "0.5.0"\nkind: [nvidia.com/gpu\n'}, {}, "config.unreadable.yaml_syntax"),
        "cdi-other-kind": (good, {SPEC: GOOD_SPEC.replace("nvidia.com/gpu", "example.com/fpga")}, {}, "cdi.kind_wrong"),
        "cdi-schema": (good, {SPEC: 'cdiVersion: "0.5.0"\nkind: nvidia.com/gpu\ndevices:\n  - name: all\n'}, {},
                       "cdi.schema"),
        "config-link-out-of-root": (None, {}, {CONFIG: str(outside / "config.toml")}, "write.failed"),
        "toolkit-file-link-out-of-root": (good, {}, {f"{TOOLKIT}/report.txt": str(outside / "report.txt")},
                                          "write.failed"),
    }
    config, files, links, code = cases[name]
    data = config.read_bytes() if hasattr(config, "read_bytes") else config
    return _root(tmp_path, data, files, links), code


REFUSALS = ["toml-syntax-error", "duplicate-key", "default-is-nvidia", "cri-disabled", "no-version-line",
            "missing-import", "v1-plugin-key", "cdi-not-yaml", "cdi-other-kind", "cdi-schema",
            "config-link-out-of-root", "toolkit-file-link-out-of-root"]


@pytest.mark.parametrize("name", REFUSALS)
def test_a_refused_run_leaves_the_root_byte_identical(tmp_path, name):
    root, code = _refusing(tmp_path, name)
    before = tree_state(root)
    outside_before = tree_state(tmp_path / "outside")
    rb = Run(validate(root=str(root))).start()
    try:
        rb.preflight()
        assert rb.refused, f"{name}: the plan must refuse"
        codes = [p.code for _, p in rb.refusals()]
        assert code in codes, codes
        results = rb.run_all()
    finally:
        rb.finish()
    assert tree_state(root) == before, "a refused run leaves nothing under the root, not even its lock or its folder"
    assert tree_state(tmp_path / "outside") == outside_before, "nor outside it"
    assert any(r.failed for r in results.values()) and not rb.written
    for r in results.values():  # every finding of a refusal says what and how to fix it, in both languages
        for p in r.problems:
            assert p.what.ko and p.what.en and p.fix and p.fix.ko and p.fix.en, p


def _states():
    """Every state apply accepts here: the course fixture, the shared configs, and the mistakes apply repairs."""
    good = GOOD.read_bytes()
    yield "empty-root", None
    yield "lab-with-nvidia", good
    for path in sorted(FIXTURES.glob("*.toml")):
        yield path.name, path.read_bytes()
    for name in ("systemdcgroup-string", "systemdcgroup-mismatch", "binaryname-relative", "runtimetype-typo",
                 "unquoted-dotted-header", "v1-path-in-v2-file", "misplaced-runtimes-without-containerd",
                 "v2-path-in-v3-file"):
        yield name, (BROKEN / f"{name}.toml").read_bytes()
    # containerd 1.6's own default: runc has SystemdCgroup = false (the cgroup-driver warning)
    yield "runc-systemdcgroup-false", good_with("SystemdCgroup = true", "SystemdCgroup = false")


@pytest.mark.parametrize("name, config", list(_states()), ids=[n for n, _ in _states()])
def test_check_mode_agrees_with_apply_on_its_result(tmp_path, name, config):
    root = _root(tmp_path, config)
    applied = run_all(root)
    checked = check(root)
    refused = [n for n, r in applied.items() if r.failed]
    if refused:  # apply refused before writing: check mode, on the same untouched root, fails those steps too
        for n in refused:
            assert checked[n].failed, (name, n, checked[n].text())
            assert {p.code for p in applied[n].problems} <= {p.code for r in checked.values() for p in r.problems}
        return
    assert failed_steps(checked) == [], "\n".join(r.text() for r in checked.values() if r.failed)
    for n, r in applied.items():
        assert sorted(p.code for p in r.problems) == sorted(p.code for p in checked[n].problems), (n, name)


def test_the_cgroup_disagreement_is_a_warning_in_both_modes(tmp_path):
    root = _root(tmp_path, good_with("SystemdCgroup = true", "SystemdCgroup = false"))  # runc's (the first one)
    applied, checked = run_all(root), None
    checked = check(root)
    for results in (applied, checked):
        (warning,) = [p for p in results[3].problems]
        assert warning.code == "options.systemd_cgroup.differs_from_default" and not warning.is_error
        assert not results[3].failed


LAB_MISTAKES = {
    "unquoted-header": ('[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]',
                        "[plugins.io.containerd.grpc.v1.cri.containerd.runtimes.nvidia]",
                        "runtime.misplaced.unquoted_header"),
    "string-boolean": ("BinaryName = \"/usr/bin/nvidia-container-runtime\"\n            SystemdCgroup = true",
                       "BinaryName = \"/usr/bin/nvidia-container-runtime\"\n            SystemdCgroup = \"true\"",
                       "options.systemd_cgroup.string"),
    "relative-binary": ('BinaryName = "/usr/bin/nvidia-container-runtime"', 'BinaryName = "nvidia-container-runtime"',
                        "options.binary_name.relative"),
    "default-changed": ('default_runtime_name = "runc"', 'default_runtime_name = "nvidia"', "default.is_runtime"),
}


def _with(mistakes: list[str]) -> bytes:
    text = GOOD.read_text()
    for m in mistakes:
        old, new, _ = LAB_MISTAKES[m]
        assert old in text, (m, old)
        text = text.replace(old, new)
        if m == "unquoted-header":  # the options sub-table's header loses its quotes too
            text = text.replace('[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]',
                                "[plugins.io.containerd.grpc.v1.cri.containerd.runtimes.nvidia.options]")
    return text.encode()


@pytest.mark.parametrize("mistakes", [[m] for m in LAB_MISTAKES] + [
    ["unquoted-header", "string-boolean"],
    ["unquoted-header", "string-boolean", "default-changed"],
    ["string-boolean", "relative-binary", "default-changed"],
], ids=lambda ms: "+".join(ms))
def test_each_lab_mistake_gets_its_own_finding_in_one_check_run(tmp_path, mistakes):
    results = check(lab_root(tmp_path, _with(mistakes)))
    codes = {p.code for r in results.values() for p in r.problems}
    for m in mistakes:
        assert LAB_MISTAKES[m][2] in codes, (m, sorted(codes))


def test_a_derived_file_after_a_wrong_step_keeps_its_point_either_way(tmp_path):
    """A derived file that faithfully records the broken input passes with a warning naming the earlier step
    (issue 51: one mistake costs one step); right as it is once fixed, it passes too (issue 41); one that says
    neither fails, its fix the lines after the earlier fix, never the broken value: parsed.txt of an unquoted
    header lists both runtimes, in the config's order."""
    root = lab_root(tmp_path, _with(["unquoted-header"]))
    (root / TOOLKIT / "parsed.txt").write_text("VERSION=2\nRUNTIMES=runc\n")  # what tomllib reads of the broken file
    results = check(root)
    assert results[5].status == "passed"
    assert [(p.code, p.values["step"]) for p in results[5].problems] == [("file.faithful_to_earlier_step", 2)]
    (root / TOOLKIT / "parsed.txt").write_text("VERSION=2\nRUNTIMES=crun\n")
    (parsed,) = [p for p in check(root)[5].problems if p.code == "file.differs"]
    assert "RUNTIMES=runc,nvidia" in parsed.what.en and "RUNTIMES=runc,nvidia" in parsed.what.ko
    # its fix: the wrong line's rule (issue 51), never the answer
    assert "line 2: RUNTIMES must be" in parsed.fix.en and "RUNTIMES=runc" not in parsed.fix.en + parsed.fix.ko
