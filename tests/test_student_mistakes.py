"""Mistakes students make by hand (vi, cp, `cat > file <<EOF`, habits from Pods and web pages) that the
first graders did not know: each gets its own verdict in check mode, with the file, the line, both languages
and the exact fix, and never a fix that writes the broken value again."""

from __future__ import annotations

import pytest

from grading_helpers import SPEC, TOOLKIT, check, failed_steps, good_with, lab_root, tree, verdict

RC = f"{TOOLKIT}/runtimeclass.yaml"
CFG = "/etc/containerd/config.toml"
BINARY = 'BinaryName = "/usr/bin/nvidia-container-runtime"'
OPTIONS = '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]'
CGROUP = "            SystemdCgroup = true\n\n    [plugins"


def _edit(root, rel, old, new):
    f = root / rel
    text = f.read_text()
    assert old in text, old
    f.write_text(text.replace(old, new, 1))


# --- the RuntimeClass ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("old, new, code, line, fix", [
    # the habit of a Pod: handler under spec: (Kubernetes: 'handler' is a required property)
    ("handler: nvidia", "spec:\n  handler: nvidia", "runtimeclass.handler_nested", 8, "handler: nvidia"),
    ("  name: nvidia\nhandler: nvidia", "  name: nvidia\n  handler: nvidia", "runtimeclass.handler_nested", 7,
     "handler: nvidia"),
    ("handler: nvidia", "handler:", "runtimeclass.field_missing", 7, "handler: nvidia"),
    ("apiVersion: node.k8s.io/v1\n", "", "runtimeclass.field_missing", None, "apiVersion: node.k8s.io/v1"),
    ("metadata:\n  name: nvidia", "metadata:\n  - name: nvidia", "runtimeclass.field_missing", 5, "name: nvidia"),
    ("  name: nvidia", "\tname: nvidia", "yaml.tab_indent", 6, "replace the tab at the start of line 6 with spaces"),
    ("handler: nvidia", "handler: nvidia\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: gpu\n",
     "yaml.several_documents", 8, "from the --- on line 8"),
    # kubectl apply's strict field validation refuses an unknown field (tests/real/test_real_runtimeclass.py)
    ("handler: nvidia", "handlers: nvidia", "runtimeclass.unknown_field.typo", 7, "handler: nvidia"),
    ("handler: nvidia", "Handler: nvidia", "runtimeclass.unknown_field.typo", 7, "handler: nvidia"),
    ("metadata:", "metdata:", "runtimeclass.unknown_field.typo", 5, "write that line as: metadata:"),
    ("handler: nvidia", "handler: nvidia\nruntimeHandler: nvidia", "runtimeclass.unknown_field", 8,
     "delete the runtimeHandler line"),
    ("apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: nvidia\nhandler: nvidia",
     "apiVersion: v1\nkind: Pod\nmetadata:\n  name: gpu\nspec:\n  runtimeClassName: nvidia\n  containers: []",
     "runtimeclass.other_kind", 4, "kind: RuntimeClass"),
])
def test_runtimeclass_mistakes_get_their_own_verdict(tmp_path, old, new, code, line, fix):
    root = lab_root(tmp_path)
    _edit(root, RC, old, new)
    before = tree(root)
    results = check(root)
    assert tree(root) == before
    assert 7 in failed_steps(results)
    p = verdict(results, 7, code)
    assert [q.code for q in results[7].problems] == [code]  # one mistake, one verdict: not also "not a runtime"
    assert (p.path, p.line) == (f"/{RC}", line)
    assert fix in p.fix.en
    assert "(없음 / missing)" not in p.what.en and "\\n" not in p.fix.en


def test_a_wrong_metadata_name_fix_is_one_readable_line(tmp_path):
    root = lab_root(tmp_path)
    _edit(root, RC, "  name: nvidia", "  name: NVIDIA_GPU")
    p = verdict(check(root), 7, "runtimeclass.name")
    assert p.line == 6 and "\\n" not in p.fix.en + p.fix.ko and "name: nvidia" in p.fix.en


# --- YAML the CDI spec shares -------------------------------------------------------------------------------

def test_a_tab_in_the_cdi_spec_is_named(tmp_path):
    root = lab_root(tmp_path)
    _edit(root, SPEC, "  - name: all", "\t- name: all")
    results = check(root)
    assert failed_steps(results) == [6]
    p = verdict(results, 6, "yaml.tab_indent")
    assert (p.line, p.col) == (6, 1) and "탭" in p.what.ko


# --- TOML syntax a hand makes: the fix is the corrected line, one TOML (and containerd 1.6) reads ------------

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


# --- a table written twice: deleting the header line alone would move its keys into the table before it ----

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


# --- runc's options, misspelt ---------------------------------------------------------------------------------

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
    assert failed_steps(results) == [3, 5, 8]
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


# --- the CDI spec's folder: a copy beside it, or the spec under another name --------------------------------

@pytest.mark.parametrize("copy, code", [
    ("etc/cdi/nvidia-old.yaml", "cdi.conflicting_spec"),  # the registry reads it: the device is dropped
    ("etc/cdi/nvidia.json", "cdi.conflicting_spec"),
    ("etc/cdi/nvidia.yaml.orig", None),  # never read (tests/real/test_real_podman_cdi.py)
    ("etc/cdi/nvidia.yaml~", None),  # vi's backup
])
def test_a_copy_of_the_spec_in_its_folder(tmp_path, copy, code):
    root = lab_root(tmp_path)
    (root / copy).write_bytes((root / SPEC).read_bytes())
    before = tree(root)
    results = check(root)
    assert tree(root) == before
    if code is None:
        assert not failed_steps(results)
        return
    assert failed_steps(results) == [6]
    p = verdict(results, 6, code)
    assert p.path == f"/{copy}" and "unresolvable CDI devices nvidia.com/gpu=all" in p.what.en
    assert f"/{copy}" in p.fix.en and f"/{copy}" in p.fix.ko


@pytest.mark.parametrize("moved, code", [
    ("etc/cdi/nvidia.json", "cdi.spec_elsewhere"),
    ("var/run/cdi/nvidia.yaml", "cdi.spec_elsewhere"),
    ("etc/cdi/nvidia.yml", "cdi.spec_unread_name"),
])
def test_a_spec_saved_under_another_name_is_found_with_the_mv(tmp_path, moved, code):
    root = lab_root(tmp_path)
    (root / moved).parent.mkdir(parents=True, exist_ok=True)
    (root / SPEC).rename(root / moved)
    results = check(root)
    assert failed_steps(results) == [6]
    p = verdict(results, 6, code)
    assert p.path == "/etc/cdi/nvidia.yaml" and p.fix.en == f"mv /{moved} /etc/cdi/nvidia.yaml"


# --- a toolkit file that is not a file --------------------------------------------------------------------------

@pytest.mark.parametrize("name, step", [("report.txt", 8), ("default.txt", 4), ("cdi-keys.txt", 6)])
def test_a_folder_where_a_toolkit_file_should_be_is_that_steps_verdict(tmp_path, name, step):
    root = lab_root(tmp_path)  # `mkdir -p /root/toolkit/report.txt` instead of creating the file
    (root / TOOLKIT / name).unlink()
    (root / TOOLKIT / name).mkdir()
    results = check(root)  # raised out of the run before: its evidence read the folder unguarded
    assert step in failed_steps(results) and set(results) == set(range(1, 9))
    assert verdict(results, step, "write.failed").what.en.startswith("a folder stands where a file should be")


# --- the lab's text files: what cannot be seen is named ---------------------------------------------------

@pytest.mark.parametrize("written, en, ko", [
    (b"DEFAULT=runc \nWHY=runtimeclass\n", "line 1 DEFAULT=runc  (a space at the end) → DEFAULT=runc", "줄 끝에 공백"),
    (b"\xef\xbb\xbfDEFAULT=runc\nWHY=runtimeclass\n", "line 1 DEFAULT=runc (an invisible BOM (U+FEFF) at the start)",
     "BOM"),  # Windows Notepad's UTF-8
    (b"DEFAULT=runc\nWHY=\truntimeclass\n", "(a tab character) → WHY=runtimeclass", "탭 문자"),
])
def test_an_invisible_difference_in_a_text_file_is_named(tmp_path, written, en, ko):
    root = lab_root(tmp_path)
    (root / TOOLKIT / "default.txt").write_bytes(written)
    p = verdict(check(root), 4, "file.differs")
    assert en in p.what.en and ko in p.what.ko and "\ufeff" not in p.what.en


# --- the new exercise kinds (runbook lab-init --mistake): made once, graded by their code ------------------

@pytest.mark.parametrize("kind", ["python-true", "typographic-quotes", "options-typo", "handler-under-spec",
                                  "runc-binary-nvidia"])
def test_the_new_mistake_kinds_are_made_once_and_graded_by_their_code(tmp_path, kind):
    from runbook_lib.labinit import add_mistakes
    from runbook_lib.mistakes import BY_KIND
    m = BY_KIND[kind]
    root = tmp_path / kind
    add_mistakes(str(root), kind)
    before = tree(root)
    assert "already there" in add_mistakes(str(root), kind) and tree(root) == before
    results = check(root)
    failed = {r.id for r in results.values() if r.failed}
    assert m.step in failed
    assert m.code in [p.code for r in results.values() if r.id == m.step for p in r.problems]
    assert tree(root) == before


# --- default_runtime_name mistyped while "checking" it in vi (step 4) ---------------------------------------

@pytest.mark.parametrize("typed", ["runc ", "rnuc", "Runc"])
def test_a_default_runtime_that_names_no_runtime_is_step_4s_one_verdict(tmp_path, typed):
    from grading_helpers import run_all
    root = lab_root(tmp_path, good_with('default_runtime_name = "runc"', f'default_runtime_name = "{typed}"'))
    results = check(root)
    assert failed_steps(results) == [4]  # not also step 5 ("runc  is not listed"), nor a runtime table for it
    assert [p.code for p in results[4].problems] == ["default.not_a_runtime"]
    p = results[4].problems[0]
    assert p.line == 20 and p.fix.en == 'write that line as: default_runtime_name = "runc"'
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


@pytest.mark.parametrize("rel, step", [(f"{TOOLKIT}/report.txt", 8), ("etc/containerd/config.toml", 1)])
def test_the_notebook_grades_every_step_with_a_folder_where_a_file_should_be(tmp_path, rel, step):
    # the notebook's own assertions read the file too (expect.file, rb.read): the run used to end there, and
    # `runbook grade` gave the student no step at all ("failed: notebook")
    from grading_helpers import errors, papermill, step_records
    root = lab_root(tmp_path)
    (root / rel).unlink()
    (root / rel).mkdir()
    before = tree(root)
    out = tmp_path / "out.ipynb"
    proc = papermill(root, out, "-f", "params/check.yaml")
    assert proc.returncode != 0 and [e["ename"] for e in errors(out)] == ["StepFailed"], proc.stderr[-2000:]
    records = step_records(out)
    assert set(range(1, 9)) <= set(records) and records[step]["status"] == "failed"
    assert "write.failed" in [p["code"] for p in records[step]["problems"]]
    assert tree(root) == before


@pytest.mark.parametrize("old, new, code, line, fix", [
    ("\ncontainerEdits:\n", "\ncontainerEdit:\n", "cdi.unknown_field.typo", 10, "write the key as: containerEdits"),
    ("  env:\n", "  envs:\n", "cdi.unknown_field.typo", 14, "write the key as: env"),
    ("  - name: all\n", "  - name: all\n    description: every GPU\n", "cdi.unknown_field", 7,
     "delete the description line"),
    ("kind: nvidia.com/gpu\n", "kind: nvidia.com/gpu\nkind: nvidia.com/gpu\n", "cdi.duplicate_key", 5,
     "keep one of lines 4 and 5: kind"),
])
def test_a_spec_the_cdi_registry_refuses_to_decode_fails_step_6(tmp_path, old, new, code, line, fix):
    # the registry decodes strictly (podman: tests/real/test_real_podman_cdi.py); the schema allows both
    root = lab_root(tmp_path)
    _edit(root, SPEC, old, new)
    results = check(root)
    assert failed_steps(results) == [6]
    p = verdict(results, 6, code)
    assert (p.path, p.line) == ("/etc/cdi/nvidia.yaml", line) and p.fix.en.startswith(fix)


# --- step 1: a folder or the config under a name nearly right ------------------------------------------------

@pytest.mark.parametrize("wanted, typed", [(TOOLKIT, "root/tookit"), ("etc/containerd/config.toml", "etc/containerd/config.tml"),
                                           ("etc/containerd/config.toml", "etc/containerd/config.toml.txt")])
def test_a_misnamed_folder_or_config_is_found_with_the_mv(tmp_path, wanted, typed):
    root = lab_root(tmp_path)
    (root / wanted).rename(root / typed)
    results = check(root)
    p = verdict(results, 1, "prepare.misnamed")
    assert p.path == f"/{wanted}" and p.fix.en == f"mv /{typed} /{wanted}"


def test_two_runtimeclass_mistakes_are_each_said_once(tmp_path):
    root = lab_root(tmp_path)
    _edit(root, RC, "handler: nvidia", "spec:\n  handler: nvidia")
    _edit(root, RC, "node.k8s.io/v1", "node.k8s.io/v1beta1")
    _edit(root, RC, "  name: nvidia", "  name: gpu")
    problems = check(root)[7].problems
    assert sorted(p.code for p in problems) == ["runtimeclass.apiVersion", "runtimeclass.handler_nested",
                                                "runtimeclass.name"]



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


@pytest.mark.parametrize("spec, fix", [
    ('cdiVersion: "0.5.0"\nkind: nvidia.com/gpu\ndevices:\n  - name: all\n', "inside the device, as deep as its name:"),
    ('cdiVersion: "0.5.0"\nkind: nvidia.com/gpu\n', "at the top level write devices:, under it - name: all"),
])
def test_a_hand_written_spec_missing_its_devices_or_edits_gets_the_lines_to_write(tmp_path, spec, fix):
    root = lab_root(tmp_path)  # no GPU in the lab: "regenerate it with nvidia-ctk" is no fix there
    (root / SPEC).write_text(spec)
    p = verdict(check(root), 6, "cdi.schema")
    assert p.fix.en.startswith(fix) and "deviceNodes:" in p.fix.ko and "nvidia-ctk" not in p.fix.en


def test_a_config_saved_as_utf16_is_named_with_its_iconv(tmp_path):
    root = lab_root(tmp_path)
    cfg = root / CFG[1:]
    cfg.write_bytes(cfg.read_text().encode("utf-16"))  # PowerShell's >, Notepad's "Unicode"
    p = verdict(check(root), 2, "UTF-16")
    assert (p.line, p.col) == (1, 1) and p.fix.en.startswith("iconv -f utf-16 -t utf-8 /etc/containerd/config.toml")
