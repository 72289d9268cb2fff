"""Configs as ops engineers' nodes have them (tests/fixtures/wild/README.md): relative import globs, inline
tables and dotted keys written by hand. Each is run as apply, a second apply, and check mode, on the same
rules as the notebook; what containerd 1.6.20 itself reads of them is in tests/real/test_real_wild_configs.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import TEST_DATA, tree_state
from layouts import CONFIG, effective, make_root, run_steps, runtimes
from runbook_lib.engine.result import UNCHANGED

WILD = TEST_DATA / "wild"
REGISTRY = "etc/containerd/conf.d/10-registry.toml"


def _without_lock(state: dict) -> dict:
    return {k: v for k, v in state.items() if not (k == "run" or k.startswith("run/"))}


def _problems(rb, step: int) -> list:
    return [p for p in rb.results[rb.steps[step - 1].id].problems]  # the lab's step number


def _relative_glob_root(tmp_path: Path, imports: str = '"conf.d/*.toml"') -> Path:
    text = (WILD / "relative-glob/config.toml").read_text().replace('"conf.d/*.toml"', imports)
    return make_root(tmp_path, text.encode(), {REGISTRY: (WILD / "relative-glob/conf.d/10-registry.toml").read_text()})


@pytest.mark.parametrize("layout", ["inplace", "dropin"])
def test_a_relative_glob_import_of_a_version_2_config_stops_before_writing(tmp_path, layout):
    """containerd before 1.6.29 / 1.7.16 (Debian 12's 1.6.20) expands `conf.d/*.toml` from its working
    directory, later releases from the config's folder: the runbook would edit a file that one of them never
    reads, so it edits none and asks for the absolute path, at the entry's line and column."""
    root = _relative_glob_root(tmp_path)
    before = tree_state(root)
    rb = run_steps(root, layout=layout)
    refusal = next(p for _, p in rb.refusals() if p.code == "config.import_relative_glob")
    assert (refusal.path, refusal.line, refusal.col) == ("/" + CONFIG, 3, 12)
    assert '"/etc/containerd/conf.d/*.toml"' in refusal.fix.en and '"/etc/containerd/conf.d/*.toml"' in refusal.fix.ko
    assert "1.6.20" in refusal.what.en and "1.6.20" in refusal.what.ko
    assert _without_lock(tree_state(root)) == _without_lock(before)
    if layout == "inplace":  # the glob matches a file already: check mode says the same, at the same place
        check = run_steps(root, mode="check", layout=layout)
        assert any(p.code == "config.import_relative_glob" and p.line == 3 for p in _problems(check, 2))


def test_the_absolute_import_is_applied_and_a_second_run_changes_nothing(tmp_path):
    root = _relative_glob_root(tmp_path, '"/etc/containerd/conf.d/*.toml"')
    rb = run_steps(root)
    assert rb.ok(), [p.what.en for r in rb.results.values() for p in r.problems]
    # containerd 1.x replaces a whole plugin table per imported file: the drop-in's CRI table is the one used
    assert "nvidia" in runtimes(root) and "nvidia" in (root / REGISTRY).read_text()
    state = tree_state(root)
    again = run_steps(root)
    assert all(r.status == UNCHANGED for r in again.results.values()) and tree_state(root) == state


def test_a_relative_glob_that_matches_nothing_reads_the_same_everywhere(tmp_path):
    root = make_root(tmp_path, (WILD / "relative-glob/config.toml").read_bytes())
    rb = run_steps(root)
    assert rb.ok(), [p.what.en for r in rb.results.values() for p in r.problems]


def test_a_relative_glob_of_a_version_3_config_is_read_from_its_folder(tmp_path):
    """containerd 2.x (the only reader of version 3) joins a relative entry to the config's folder first."""
    main = ('version = 3\nimports = ["conf.d/*.toml"]\n\n'
            '[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]\n  runtime_type = "io.containerd.runc.v2"\n')
    root = make_root(tmp_path, main.encode(), {"etc/containerd/conf.d/10-images.toml":
                     'version = 3\n[plugins."io.containerd.cri.v1.images".registry]\n  config_path = "/etc/containerd/certs.d"\n'})
    assert [f.lab_path for f in effective(root).files][1:] == ["/etc/containerd/conf.d/10-images.toml"]
    rb = run_steps(root)
    assert rb.ok(), [p.what.en for r in rb.results.values() for p in r.problems]


def test_only_a_star_makes_an_import_a_glob(tmp_path):
    """containerd globs an import only when it has a `*`; `gpu?.toml` is a file name (and a missing file)."""
    main = 'version = 2\nimports = ["/etc/containerd/conf.d/gpu?.toml"]\n'
    root = make_root(tmp_path, main.encode(), {"etc/containerd/conf.d/gpu1.toml": "version = 2\n"})
    assert effective(root).missing_imports == ["/etc/containerd/conf.d/gpu?.toml"]


INLINE_NVIDIA = ('version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n'
                 '  runtime_type = "io.containerd.runc.v2"\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes]\n'
                 '  nvidia = { runtime_type = "io.containerd.runc.v2", options = { BinaryName = "/usr/bin/nvidia-container-runtime" } }\n')


@pytest.mark.parametrize("text, line, table", [
    ((WILD / "inline-runtimes.toml").read_text(), 9, 'plugins."io.containerd.grpc.v1.cri".containerd.runtimes'),
    (INLINE_NVIDIA, 5, 'plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia'),  # SystemdCgroup missing
])
def test_an_inline_table_in_the_way_is_refused_with_its_line_in_both_modes(tmp_path, text, line, table):
    """TOML allows nothing to be added to an inline table from outside it: the runbook says which line, and
    how to write it as [section] tables, instead of "the planned content would not read back"."""
    root = make_root(tmp_path, text.encode())
    before = tree_state(root)
    rb = run_steps(root)
    refusal = next(p for _, p in rb.refusals())
    assert (refusal.code, refusal.path, refusal.line, refusal.col) == ("config.inline_table", "/" + CONFIG, line, 3)
    assert refusal.values["table"] == table and refusal.excerpt.lstrip().startswith(table.rsplit(".", 1)[1] + " = {")
    assert refusal.what.ko and refusal.fix.ko and "[section]" in refusal.fix.en
    assert _without_lock(tree_state(root)) == _without_lock(before)
    check = run_steps(root, mode="check")
    assert [p.line for p in _problems(check, 2) if p.code == "config.inline_table"] == [line]


def test_an_inline_runtime_that_needs_nothing_passes_in_both_modes(tmp_path):
    text = INLINE_NVIDIA.replace('"/usr/bin/nvidia-container-runtime" }', '"/usr/bin/nvidia-container-runtime", SystemdCgroup = true }')
    root = make_root(tmp_path, text.encode())
    assert run_steps(root).ok() and run_steps(root, mode="check").ok()
    assert (root / CONFIG).read_text() == text


def test_dotted_options_get_one_more_dotted_key(tmp_path):
    old = (WILD / "dotted-options-nvidia.toml").read_text()
    root = make_root(tmp_path, old.encode())
    rb = run_steps(root)
    assert rb.ok(), [p.what.en for r in rb.results.values() for p in r.problems]
    new = (root / CONFIG).read_text()
    assert new == old.replace("# the toolkit's wrapper\n", "# the toolkit's wrapper\n  options.SystemdCgroup = true\n")
    state = tree_state(root)
    assert all(r.status == UNCHANGED for r in run_steps(root).results.values()) and tree_state(root) == state
    assert run_steps(root, mode="check").ok()


DEFAULT_CRUN = ('version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd]\n  default_runtime_name = "crun"\n'
                '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n  runtime_type = "io.containerd.runc.v2"\n')


def test_a_default_runtime_name_without_its_table_is_refused_not_invented(tmp_path):
    """containerd's CRI plugin does not load when default_runtime_name names no runtime (1.6's
    ValidatePluginConfig). The runbook used to write a `crun` table running runc, which hid the mistake."""
    root = make_root(tmp_path, DEFAULT_CRUN.encode())
    before = tree_state(root)
    rb = run_steps(root)
    refusal = next(p for _, p in rb.refusals())
    assert (refusal.code, refusal.line, refusal.values["default"]) == ("default.not_a_runtime", 3, "crun")
    assert "runtimes.crun]" in refusal.fix.en and "runtimes.crun]" in refusal.fix.ko
    assert _without_lock(tree_state(root)) == _without_lock(before)
    assert [p.code for p in _problems(run_steps(root, mode="check"), 4)][:1] == ["default.not_a_runtime"]


def test_the_deprecated_default_runtime_table_is_a_default(tmp_path):
    """1.x turns a typed `default_runtime` table into the runtime "default" and makes it the default."""
    text = ('version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.default_runtime]\n'
            '  runtime_type = "io.containerd.runc.v2"\n')
    root = make_root(tmp_path, text.encode())
    rb = run_steps(root)
    assert rb.ok(), [p.what.en for r in rb.results.values() for p in r.problems]


def test_version_0_is_version_1_in_both_modes(tmp_path):
    """containerd: "Version 0 is not defined, treated at version 1"; the runbook stopped with a KeyError."""
    text = 'version = 0\n[plugins.cri.containerd.runtimes.runc]\n  runtime_type = "io.containerd.runc.v2"\n'
    root = make_root(tmp_path, text.encode())
    rb = run_steps(root)
    assert rb.ok(), [p.what.en for r in rb.results.values() for p in r.problems]
    assert "nvidia" in runtimes(root) and run_steps(root, mode="check").ok()


@pytest.mark.parametrize("main", ["version = 2\n", "version = 3\n"])
def test_a_drop_ins_version_is_checked_like_the_main_files(tmp_path, main):
    """containerd refuses `version = "3"` in any file (Can't convert 3(string) to int): so does the runbook,
    naming the drop-in and its line, where it used to compare a string with a number (TypeError)."""
    text = main + 'imports = ["/etc/containerd/conf.d/*.toml"]\n'
    root = make_root(tmp_path, text.encode(), {"etc/containerd/conf.d/10-x.toml": f'# site\nversion = "{main[-2]}"\n'})
    rb = run_steps(root)
    refusal = next(p for _, p in rb.refusals())
    assert (refusal.path, refusal.line) == ("/etc/containerd/conf.d/10-x.toml", 2)
    assert "version" in refusal.what.en and refusal.what.ko and refusal.fix.ko


K3S = "var/lib/rancher/k3s/agent/etc/containerd"
K3S_V2 = TEST_DATA / "distro" / "k3s-v2" / "config.toml"


def _k3s_root(tmp_path: Path, template: str) -> Path:
    from distro_helpers import write_root
    return write_root(tmp_path, {f"{K3S}/config.toml": K3S_V2.read_text(), f"{K3S}/config.toml.tmpl": template})


def test_a_k3s_template_with_go_conditionals_is_refused_at_its_line_not_a_traceback(tmp_path):
    """`{{- if .NodeConfig.AgentConfig.Systemd }}` (k3s's own config, as users copy it from issues) cannot be
    rendered outside k3s: a ValueError traceback stopped the whole run; now a finding at the action's line."""
    root = _k3s_root(tmp_path, (WILD / "k3s-config.toml.tmpl").read_text())
    before = tree_state(root)
    rb = run_steps(root)
    refusal = next(p for _, p in rb.refusals())
    assert (refusal.code, refusal.path, refusal.line, refusal.col) == (
        "distro.template_unrendered", f"/{K3S}/config.toml.tmpl", 2, 1)
    assert "{{- if .NodeConfig.AgentConfig.Systemd }}" in refusal.what.en and refusal.what.ko
    assert "{{ .SystemdCgroup }}" in refusal.fix.en and "{{ .SystemdCgroup }}" in refusal.fix.ko
    assert _without_lock(tree_state(root)) == _without_lock(before)
    assert "distro.template_unrendered" in [p.code for p in _problems(run_steps(root, mode="check"), 2)]


def test_a_table_the_base_defines_written_again_in_the_template_is_said_of_the_template(tmp_path):
    """The rendering defines the registry table twice: the finding names the template's line, never "delete
    line 38" of the generated config.toml (k3s rewrites it at every start)."""
    template = '{{ template "base" . }}\n\n[plugins."io.containerd.grpc.v1.cri".registry]\n  config_path = "/etc/containerd/certs.d"\n'
    root = _k3s_root(tmp_path, template)
    rb = run_steps(root)
    for _, refusal in rb.refusals():
        assert refusal.code == "distro.template_renders_invalid", refusal.code
        assert (refusal.path, refusal.line) == (f"/{K3S}/config.toml.tmpl", 3)
        assert "registry" in refusal.fix.en and "generated config.toml" in refusal.fix.en and refusal.fix.ko
    assert (root / K3S / "config.toml.tmpl").read_text() == template


def test_a_crlf_k3s_template_gets_crlf_lines(tmp_path):
    template = ('{{ template "base" . }}\r\n\r\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.crun]\r\n'
                '  runtime_type = "io.containerd.runc.v2"\r\n')
    root = _k3s_root(tmp_path, template)
    rb = run_steps(root)
    assert rb.ok(), [p.what.en for r in rb.results.values() for p in r.problems]
    new = (root / K3S / "config.toml.tmpl").read_bytes()
    assert new.startswith(template.encode()) and b"nvidia" in new
    assert new.count(b"\n") == new.count(b"\r\n")
    state = tree_state(root)
    assert all(r.status == UNCHANGED for r in run_steps(root).results.values()) and tree_state(root) == state


NVIDIA_CTK = TEST_DATA / "conformance" / "nvidia-ctk"
DROPIN = "etc/containerd/conf.d/99-nvidia.toml"


def _ctk_dropin_root(tmp_path: Path, case: str) -> Path:
    """A node where nvidia-ctk (1.17+) wrote its drop-in: conf.d/99-nvidia.toml, the runbook's drop-in path too."""
    return make_root(tmp_path, (NVIDIA_CTK / case / "nvidia-ctk.config.toml").read_bytes(),
                     {DROPIN: (NVIDIA_CTK / case / "nvidia-ctk.99-nvidia.toml").read_text()})


def test_nvidia_ctks_drop_in_that_already_registers_the_runtime_is_left_alone(tmp_path):
    """layout=dropin rewrote nvidia-ctk's file into the runbook's own (its header and form gone, and a later
    mode=remove would then retire it); the runtime being registered as wanted, nothing is written now."""
    root = _ctk_dropin_root(tmp_path, "a_v2_minimal")
    before = (root / DROPIN).read_bytes()
    rb = run_steps(root, layout="dropin")
    assert rb.ok(), [p.what.en for r in rb.results.values() for p in r.problems]
    assert (root / DROPIN).read_bytes() == before and rb.results["runtime"].status == UNCHANGED


def test_nvidia_ctks_drop_in_with_another_value_is_not_overwritten(tmp_path):
    """nvidia-ctk inherited SystemdCgroup = false: the runbook would have to replace another tool's file, so it
    refuses (in check mode too) and says how to proceed."""
    root = _ctk_dropin_root(tmp_path, "b_v2_containerd-1.6.20-default")
    before = tree_state(root)
    rb = run_steps(root, layout="dropin")
    refusal = next(p for _, p in rb.refusals())
    assert (refusal.code, refusal.path, refusal.line) == ("dropin.not_ours", "/" + DROPIN, 1)
    assert "layout=inplace" in refusal.fix.en and "layout=inplace" in refusal.fix.ko
    assert _without_lock(tree_state(root)) == _without_lock(before)
    assert "dropin.not_ours" in [p.code for p in _problems(run_steps(root, mode="check", layout="dropin"), 2)]


def test_a_crlf_microk8s_template_keeps_its_line_ends(tmp_path):
    """The runtime's lines went into a CRLF containerd-template.toml with LF ends (planned on the raw text)."""
    from distro_helpers import distro_fixture, write_root
    rel = "var/snap/microk8s/current/args/containerd-template.toml"
    from runbook_lib.containerd.distro.render import render_microk8s
    old = distro_fixture("microk8s/containerd-template.toml").replace("\n", "\r\n").encode()
    generated = render_microk8s(distro_fixture("microk8s/containerd-template.toml"))  # microk8s has started once
    root = write_root(tmp_path, {rel: old, rel.replace("-template", ""): generated})
    rb = run_steps(root)
    assert rb.ok(), [p.what.en for r in rb.results.values() for p in r.problems]
    new = (root / rel).read_bytes()
    assert b"runtimes.nvidia]\r\n" in new and new.count(b"\n") == new.count(b"\r\n")
    state = tree_state(root)
    assert all(r.status == UNCHANGED for r in run_steps(root).results.values()) and tree_state(root) == state


def test_an_empty_binary_name_is_said_to_run_plain_runc(tmp_path):
    """`BinaryName = ""` (runc's value in containerd's default config, left in a copied table) is not "a relative
    path searched on PATH": the shim runs plain runc, and pods get no GPU."""
    text = ('version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n  runtime_type = "io.containerd.runc.v2"\n'
            '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n  runtime_type = "io.containerd.runc.v2"\n'
            '  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]\n    BinaryName = ""\n    SystemdCgroup = true\n')
    root = make_root(tmp_path, text.encode())
    problem = next(p for p in _problems(run_steps(root, mode="check"), 3) if p.code.startswith("options.binary_name"))
    assert (problem.code, problem.line) == ("options.binary_name.empty", 7)
    assert "runc" in problem.what.en and "runc" in problem.what.ko
    assert run_steps(root).ok() and 'BinaryName = "/usr/bin/nvidia-container-runtime"' in (root / CONFIG).read_text()


def test_a_site_drop_in_that_redefines_the_runtime_is_the_one_named(tmp_path):
    """k3s with drop-in folders: the generated file has k3s's own nvidia, and the site's 50-gpu.toml (merged
    over it, key by key, by containerd 2.x) another binary. The refusal used to quote the generated file's value
    and call it k3s's; it now names the file and value containerd uses."""
    from distro_helpers import distro_fixture, write_root
    site = f"{K3S}/config-v3.toml.d/50-gpu.toml"
    root = write_root(tmp_path, {f"{K3S}/config.toml": distro_fixture("k3s-v3-dropin/config.toml"), site:
                                 "version = 3\n[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.nvidia]\n"
                                 "  runtime_type = 'io.containerd.runc.v2'\n"
                                 "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.nvidia.options]\n"
                                 "  BinaryName = '/opt/gpu/bin/nvidia-container-runtime'\n"})
    refusal = next(p for _, p in run_steps(root, profile="node").refusals())  # another owner: a node's notion
    assert (refusal.code, refusal.path, refusal.line) == ("runtime.other_binary", "/" + site, 5)
    assert "/opt/gpu/bin/nvidia-container-runtime" in refusal.what.en and "k3s" not in refusal.values.get("owner", "")
    assert "another tool or person" in refusal.what.en


def test_a_default_runtime_without_systemd_cgroup_is_warned_about_like_an_explicit_false(tmp_path):
    """`systemd_cgroup = true` in the CRI table (the 1.x option people set for the kubelet's systemd driver)
    does nothing for a runc.v2 runtime: runc without SystemdCgroup runs with false, exactly as if it said so. An
    explicit false was warned about (differs_from_default), an absent one was not."""
    text = ('version = 2\n[plugins."io.containerd.grpc.v1.cri"]\n  systemd_cgroup = true\n'
            '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n  runtime_type = "io.containerd.runc.v2"\n')
    root = make_root(tmp_path, text.encode())
    rb = run_steps(root)
    assert rb.ok(), [p.what.en for r in rb.results.values() for p in r.problems]
    for run in (rb, run_steps(root, mode="check")):
        warned = [p for p in _problems(run, 3) if p.code == "options.systemd_cgroup.default_unset"]
        assert len(warned) == 1 and not warned[0].is_error and warned[0].line is not None
        assert "runtimes.runc.options]" in warned[0].fix.en and "systemd_cgroup" in warned[0].why.en


def test_a_file_without_a_final_newline_keeps_it_that_way_and_remove_gives_it_back(tmp_path):
    """The runtime goes in the middle (after runc's options); the last line used to gain a newline all the same,
    a byte the user did not ask for, which mode=remove then could not give back."""
    from helpers import LAB_BASE
    old = LAB_BASE.read_bytes().rstrip(b"\n")
    root = make_root(tmp_path, old)
    assert run_steps(root).ok()
    new = (root / CONFIG).read_bytes()
    assert not new.endswith(b"\n") and new.endswith(old.rsplit(b"\n", 1)[1]) and b"runtimes.nvidia]" in new
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run
    rb = Run(validate(root=str(root), mode="remove")).start()
    try:
        rb.run_all()
    finally:
        rb.finish()
    assert (root / CONFIG).read_bytes() == old
