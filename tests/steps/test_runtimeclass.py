"""Step 7's verdict on the RuntimeClass (runbook_lib/steps/runtimeclass.py, `judge`): a missing file's fix is the
whole RuntimeClass for the runtime's name, and a right handler whose runtime step 2 failed to register is blocked
by step 2 (pointing at the handler's line), not failed as a handler that names no runtime, and a handler that
names a runtime of the config is right whatever else step 2 found; one that names none points at its line, with
the config's runtimes. In process, through check runs on a lab root."""

from __future__ import annotations

from grading_helpers import TOOLKIT, broken, check, good_with, lab_root

RUNTIMECLASS = f"/{TOOLKIT}/runtimeclass.yaml"


def test_a_missing_runtimeclass_is_fixed_by_the_whole_file_for_the_runtimes_name(tmp_path):
    root = lab_root(tmp_path)
    (root / TOOLKIT / "runtimeclass.yaml").unlink()
    problems = check(root)[7].problems
    assert [(p.code, p.path) for p in problems] == [("runtimeclass.missing", RUNTIMECLASS)], problems
    for fix in (problems[0].fix.en, problems[0].fix.ko):
        assert fix.endswith("metadata.name: nvidia, handler: nvidia"), fix


def test_a_right_handler_whose_runtime_step_2_failed_to_register_passes_on_the_corrected_input(tmp_path):
    """Issue 41: judged against the corrected input, a handler that names the runtime step 2 will register is
    right: it keeps its points (it was blocked, 0 of its point, for step 2's mistake)."""
    root = lab_root(tmp_path, broken("v1-path-in-v2-file.toml"))  # the runtime table under a path containerd skips
    results = check(root)
    assert results[2].failed, results[2].text()
    assert results[7].status == "passed" and results[7].problems == [], results[7].text()

def test_a_handler_that_names_a_runtime_of_the_config_is_not_blocked_by_another_failure_of_step_2(tmp_path):
    """Step 2 failed for another reason (a wrong runtime_type in the nvidia runtime): the runtime is there, so
    the RuntimeClass naming it is right."""
    root = lab_root(tmp_path, good_with('runtimes.nvidia]\n          runtime_type = "io.containerd.runc.v2"',
                                        'runtimes.nvidia]\n          runtime_type = "io.containerd.runc"'))
    results = check(root)
    assert results[2].failed, results[2].text()
    assert results[7].problems == [] and results[7].status == "passed", results[7].text()


def test_a_handler_that_names_no_runtime_of_the_config_points_at_its_line_and_lists_the_runtimes(tmp_path):
    root = lab_root(tmp_path)
    rc = root / TOOLKIT / "runtimeclass.yaml"
    rc.write_text(rc.read_text().replace("handler: nvidia", "handler: gpu"))
    problems = [p for p in check(root)[7].problems if p.code == "runtimeclass.handler_not_a_runtime"]
    assert len(problems) == 1, check(root)[7].text()
    p = problems[0]
    handler_line = rc.read_text().split("\n").index("handler: gpu") + 1
    assert (p.path, p.line, p.pointer) == (RUNTIMECLASS, handler_line, "/handler")
    for said in (p.what.en, p.what.ko):
        assert "gpu" in said and "nvidia, runc" in said and "None" not in said, said
    for fix in (p.fix.en, p.fix.ko):  # the fix names the runbook's runtime
        assert "handler: nvidia" in fix and "runtimes.nvidia" in fix, fix


def test_a_handler_checked_against_a_config_without_any_runtime_table_lists_none(tmp_path):
    """A config that lists no runtime at all (containerd 1.x then keeps only its built-in runc): the handler's
    finding says "-" for the config's runtimes, not an empty list."""
    root = lab_root(tmp_path, b'version = 2\n\n[plugins."io.containerd.grpc.v1.cri".containerd]\n'
                              b'  default_runtime_name = "runc"\n')
    rc = root / TOOLKIT / "runtimeclass.yaml"
    rc.write_text(rc.read_text().replace("handler: nvidia", "handler: gpu"))
    [p] = [p for p in check(root)[7].problems if p.code == "runtimeclass.handler_not_a_runtime"]
    assert (p.values["handler"], p.values["runtimes"]) == ("gpu", "-")


def test_a_handler_with_a_blank_inside_its_quotes_is_named_as_such_and_fixed_by_the_runtimes_name(tmp_path):
    """`handler: "nvidia "`: no DNS label, which the API server refuses, and not containerd's runtime either; said
    as the blank it is (the value shown in quotes, where the blank can be seen), at the handler's line."""
    root = lab_root(tmp_path)
    rc = root / TOOLKIT / "runtimeclass.yaml"
    rc.write_text(rc.read_text().replace("handler: nvidia", 'handler: " nvidia"'))
    results = check(root)
    [p] = results[7].problems
    assert (p.code, p.path, p.pointer) == ("runtimeclass.handler_blanks", RUNTIMECLASS, "/handler")
    assert p.line == rc.read_text().split("\n").index('handler: " nvidia"') + 1
    assert p.what.en.startswith('handler " nvidia" has a blank before or after the name; a handler must be a DNS '
                                "label (lowercase letters, digits and -), so the Kubernetes API server refuses")
    assert p.what.ko.startswith('handler 값 " nvidia" 의 앞이나 뒤에 공백이 있습니다.')
    assert "공백을 뺀 이름은 containerd 의 런타임 nvidia 입니다." in p.what.ko
    assert (p.fix.en, p.fix.ko) == ("handler: nvidia  (no blank inside the quotes)", "handler: nvidia  (따옴표 안에 공백 없이)")
    # a blank around a name that is no runtime either: that name's own finding, as before
    rc.write_text(rc.read_text().replace('handler: " nvidia"', 'handler: "gpu "'))
    assert [p.code for p in check(root)[7].problems] == ["runtimeclass.handler_not_a_runtime"]
