"""Mistakes students make by hand in config.toml (vi, cp, `cat >> config.toml <<EOF`, a Korean input method,
a web page's quotes) and in step 1: each gets its own verdict in check mode, with the file, the line, both
languages and the exact fix, never a fix that writes the broken value again."""

from __future__ import annotations

import os

import pytest

from grading_helpers import TOOLKIT, check, failed_steps, good_with, lab_root, tree, verdict
from mistake_helpers import CFG, BINARY, OPTIONS, CGROUP


@pytest.mark.parametrize("old, new, code, line, fixed", [
    (BINARY, BINARY.replace('"', "\u201c", 1).replace('"', "\u201d"), "toml.typographic_quotes", 34, BINARY),
    (OPTIONS, OPTIONS.replace('"io', "\u201cio").replace('cri"', "cri\u201d"), "toml.typographic_quotes", 33, OPTIONS),
    (BINARY, BINARY.replace(" = ", " \uff1d "), "toml.lookalike_character", 34, BINARY),  # a Korean IME's =
    (BINARY, BINARY.replace(" = ", "\u3000= "), "toml.lookalike_character", 34, BINARY),
    (BINARY, BINARY.replace('"', ""), "toml.unquoted_string", 34, BINARY),
    ('runtime_type = "io.containerd.runc.v2"\n\n          ' + OPTIONS,
     'runtime_type = io.containerd.runc.v2\n\n          ' + OPTIONS, "toml.unquoted_string", 31,
     'runtime_type = "io.containerd.runc.v2"'),
    (CGROUP, CGROUP.replace("true", "True"), "toml.boolean_spelling", 35, "SystemdCgroup = true"),  # Python's
    (CGROUP, CGROUP.replace("true", "yes"), "toml.boolean_spelling", 35, "SystemdCgroup = true"),  # YAML's
    (CGROUP, CGROUP.replace("= true", ": true"), "toml.yaml_colon", 35, "SystemdCgroup = true"),
    # never the string boolean step 3 refuses, whatever quotes came with it
    (CGROUP, CGROUP.replace("= true", ': "true"'), "toml.yaml_colon", 35, "SystemdCgroup = true"),
    (CGROUP, CGROUP.replace("= true", "= \u201ctrue\u201d"), "toml.typographic_quotes", 35, "SystemdCgroup = true"),
    (OPTIONS, OPTIONS[:-1], "toml.header_unclosed", 33, OPTIONS),
])
def test_toml_syntax_mistakes_get_the_corrected_line(tmp_path, old, new, code, line, fixed):
    root = lab_root(tmp_path, good_with(old, new))
    before = tree(root)
    results = check(root)
    assert tree(root) == before
    p = verdict(results, 2, code)
    assert (p.path, p.line) == (CFG, line) and p.col
    assert p.fix.en == f"write this line instead: {fixed}" and fixed in p.fix.ko
    assert "TOML" in p.what.ko and "(line" in p.what.en


NVIDIA_BLOCK = ('        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n'
                '          runtime_type = "io.containerd.runc.v2"\n\n'
                f'          {OPTIONS}\n            {BINARY}\n            SystemdCgroup = true\n\n')
CNI = '    [plugins."io.containerd.grpc.v1.cri".cni]'


def test_a_block_appended_twice_is_deleted_whole_and_then_passes(tmp_path):
    root = lab_root(tmp_path, good_with(CNI, NVIDIA_BLOCK + CNI))  # `cat >> config.toml <<EOF` run twice
    p = verdict(check(root), 2, "toml.duplicate_block")
    assert p.line == 37 and "delete lines 37–42" in p.fix.en and "37–42" in p.fix.ko
    lines = (root / CFG[1:]).read_text().split("\n")
    (root / CFG[1:]).write_text("\n".join(lines[:36] + lines[42:]))  # the fix, as the student would do it
    assert not failed_steps(check(root))


def test_runcs_options_header_copied_without_renaming_gets_the_renamed_header(tmp_path):
    root = lab_root(tmp_path, good_with(OPTIONS, OPTIONS.replace(".nvidia.", ".runc.")))
    p = verdict(check(root), 2, "toml.duplicate_options")
    assert p.line == 33 and p.fix.en == f"write this line instead: {OPTIONS}"
    lines = (root / CFG[1:]).read_text().split("\n")
    lines[32] = "          " + OPTIONS
    (root / CFG[1:]).write_text("\n".join(lines))
    assert not failed_steps(check(root))


def test_a_second_table_with_keys_of_its_own_is_merged_not_its_header_deleted(tmp_path):
    second = NVIDIA_BLOCK.replace("SystemdCgroup = true", "SystemdCgroup = false")
    p = verdict(check(lab_root(tmp_path, good_with(CNI, second + CNI))), 2, "toml.duplicate_table")
    assert p.line == 37 and "keep either lines 30–35 or lines 37–42" in p.fix.en
    assert not p.fix.en.startswith("delete line 37")


@pytest.mark.parametrize("old, new, step, code, line, fix", [
    (BINARY, BINARY.replace("BinaryName", "BinaryPath"), 3, "options.unknown_key.typo", 34, BINARY),
    (BINARY, BINARY.replace("BinaryName", "binary_name"), 3, "options.unknown_key.typo", 34, BINARY),
    (CGROUP, CGROUP.replace("SystemdCgroup", "SystemCgroup"), 3, "options.unknown_key.typo", 35, "SystemdCgroup = true"),
    (OPTIONS, OPTIONS.replace(".options]", ".option]"), 2, "runtime.options_header_typo", 33, OPTIONS),
])
def test_a_misspelt_option_is_named_with_the_line_to_write(tmp_path, old, new, step, code, line, fix):
    results = check(lab_root(tmp_path, good_with(old, new)))
    assert step in failed_steps(results)
    p = verdict(results, step, code)
    assert (p.path, p.line) == (CFG, line) and p.fix.en.endswith(fix) and fix in p.fix.ko
    if step == 3:  # the typo says what is missing: not also "options has no BinaryName" on another line
        assert [q.code for q in results[3].problems] == [code]


def test_a_missing_systemdcgroup_is_placed_at_its_table(tmp_path):
    results = check(lab_root(tmp_path, good_with(CGROUP, CGROUP.replace("            SystemdCgroup = true\n", ""))))
    p = verdict(results, 3, "options.systemd_cgroup.missing")
    assert p.line == 33  # the options header: where the line goes


def test_binaryname_in_kubesprays_case_alone_is_one_true_verdict(tmp_path):
    # containerd decodes runc's options case-insensitively (runbook_lib/containerd/spelling.py): binaryName
    # alone is read, so the verdict is the spelling (apply refuses to add a second one), never "no BinaryName,
    # plain runc would run"; its fix carries the lab's value, not the student's
    results = check(lab_root(tmp_path, good_with(BINARY, BINARY.replace("BinaryName", "binaryName"))))
    assert failed_steps(results) == [3]  # parsed.txt and report.txt are right once it is fixed: they pass
    assert [n for n, r in results.items() if r.status == "blocked"] == []
    assert [q.code for q in results[3].problems] == ["options.key_spelling.alone"]
    p = verdict(results, 3, "options.key_spelling.alone")
    assert p.line == 34 and p.fix.en == f"write that line as: {BINARY}" and "reads this one too" in p.what.en
    wrong = check(lab_root(tmp_path / "wrong", good_with(BINARY, 'binaryName = "/usr/bin/runc"')))
    assert verdict(wrong, 3, "options.key_spelling.alone").fix.en == f"write that line as: {BINARY}"


def test_apply_adds_the_misspelt_option_and_then_agrees_with_check(tmp_path):
    from grading_helpers import run_all
    root = lab_root(tmp_path, good_with(BINARY, BINARY.replace("BinaryName", "BinaryPath")))
    applied = run_all(root)
    assert not [n for n, r in applied.items() if r.failed]
    results = check(root)
    assert not failed_steps(results)  # BinaryName is there now; the dropped BinaryPath line is a warning
    p = verdict(results, 3, "options.unknown_key.extra")
    assert p.severity == "warning" and p.fix.en == "delete the BinaryPath line." and p.line == 34


@pytest.mark.parametrize("typed", ["runc ", "rnuc", "Runc"])
def test_a_default_runtime_that_names_no_runtime_is_step_4s_one_verdict(tmp_path, typed):
    from grading_helpers import run_all
    root = lab_root(tmp_path, good_with('default_runtime_name = "runc"', f'default_runtime_name = "{typed}"'))
    results = check(root)
    assert failed_steps(results) == [4]  # not also step 5 ("runc  is not listed"), nor a runtime table for it
    assert [p.code for p in results[4].problems] == ["default.not_a_runtime"]
    p = results[4].problems[0]
    assert p.line == 20 and p.fix.en.startswith('write that line as: default_runtime_name = "runc";')
    assert not results[2].diff  # step 2 would not write a runtime table named after the typo
    before = tree(root)
    applied = run_all(root)  # apply refuses, before any write: which runtime was meant is a guess
    assert applied[4].failed and tree(root) == before


def test_options_written_without_their_header_are_told_to_get_it_not_to_be_deleted(tmp_path):
    results = check(lab_root(tmp_path, good_with(f"\n          {OPTIONS}\n", "\n")))
    p = verdict(results, 2, "runtime.option_outside_options")
    assert p.line == 33 and p.fix.en == f"put the options header line right above these lines: {OPTIONS}"
    assert not [q for q in results[2].problems if q.fix and q.fix.en.startswith("delete the")]


def test_a_misspelt_runtime_name_points_at_its_header(tmp_path):
    nvidia = '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia'
    typo = nvidia[:-2] + "a"  # runtimes.nvida
    text = good_with(nvidia + "]", typo + "]").decode().replace(nvidia + ".options]", typo + ".options]")
    results = check(lab_root(tmp_path, text.encode()))
    p = verdict(results, 2, "runtime.name_misspelt")
    assert p.line == 30 and "runtimes.nvida]" in p.what.en and f"{nvidia}]" in p.fix.en


def test_the_variants_are_not_misspellings_of_each_other(tmp_path):
    results = check(lab_root(tmp_path), variants=True)  # nvidia-cdi and nvidia-legacy are missing, nvidia is not
    codes = [p.code for r in results.values() for p in r.problems]
    assert "runtime.name_misspelt" not in codes and "runtime.missing" in codes


@pytest.mark.parametrize("wanted, typed", [(TOOLKIT, "root/tookit"), ("etc/containerd/config.toml", "etc/containerd/config.tml"),
                                           ("etc/containerd/config.toml", "etc/containerd/config.toml.txt")])
def test_a_misnamed_folder_or_config_is_found_with_the_mv(tmp_path, wanted, typed):
    root = lab_root(tmp_path)
    (root / wanted).rename(root / typed)
    results = check(root)
    p = verdict(results, 1, "prepare.misnamed")
    at = os.path.realpath(root)  # the mv as pasted: under the root (issue 51)
    assert p.path == f"/{wanted}" and p.fix.en == f"mv {at}/{typed} {at}/{wanted}"


def test_the_nvidia_binary_in_the_default_runtimes_options_is_step_4s_verdict(tmp_path):
    # every pod without a RuntimeClass would run the nvidia runtime: what the lab's step 4 is about
    from grading_helpers import run_all
    runc = '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\n            SystemdCgroup = true\n'
    root = lab_root(tmp_path, good_with(runc, runc + f"            {BINARY}\n"))
    results = check(root)
    assert failed_steps(results) == [4]
    p = verdict(results, 4, "default.runs_runtime_binary")
    assert p.line == 29 and OPTIONS in p.fix.en
    before = tree(root)
    assert run_all(root)[4].failed and tree(root) == before  # apply refuses: which table was meant is a guess


def test_an_option_above_its_options_table_is_moved_there(tmp_path):
    text = good_with('runtime_type = "io.containerd.runc.v2"\n\n          ' + OPTIONS,
                     'runtime_type = "io.containerd.runc.v2"\n          SystemdCgroup = true\n\n          ' + OPTIONS)
    text = text.decode().replace(f"            {BINARY}\n            SystemdCgroup = true\n", f"            {BINARY}\n").encode()
    results = check(lab_root(tmp_path, text))
    p = verdict(results, 2, "runtime.option_outside_options.move")
    assert p.line == 32 and p.fix.en == f"move these lines under {OPTIONS}."


def test_a_config_saved_as_utf16_is_named_with_its_iconv(tmp_path):
    root = lab_root(tmp_path)
    cfg = root / CFG[1:]
    cfg.write_bytes(cfg.read_text().encode("utf-16"))  # PowerShell's >, Notepad's "Unicode"
    p = verdict(check(root), 2, "UTF-16")
    at = os.path.realpath(root) + CFG  # the command as pasted: the file under the root (issue 51)
    assert (p.line, p.col) == (1, 1) and p.fix.en.startswith(f"iconv -f utf-16 -t utf-8 {at} ")


@pytest.mark.parametrize("typed", ["/usr/bin/nvidia-container-runtime ", " /usr/bin/nvidia-container-runtime",
                                   "/usr/bin/nvidia-container-runtime\t"])
def test_a_binaryname_with_a_space_around_it_is_a_typo_of_step_3_not_another_owner(tmp_path, typed):
    """A space inside the quotes makes the shim look for a file of that name: a student's typo, told at step 3
    with the line to write (not step 2's "another owner's runtime", which would block everything after it),
    and apply writes the path without it."""
    from grading_helpers import run_all

    written = BINARY.replace('"/usr/bin/nvidia-container-runtime"', f'"{typed}"'.replace("\t", "\\t"))
    results = check(lab_root(tmp_path, good_with(BINARY, written)))
    assert failed_steps(results) == [3]
    assert [q.code for q in results[3].problems] == ["options.binary_name.spaces"]
    p = verdict(results, 3, "options.binary_name.spaces")
    assert p.line == 34 and p.fix.en.startswith(BINARY)
    root = lab_root(tmp_path / "apply", good_with(BINARY, written))
    assert not [n for n, r in run_all(root).items() if r.failed]
    assert BINARY in (root / CFG.lstrip("/")).read_text()
    assert not failed_steps(check(root))
