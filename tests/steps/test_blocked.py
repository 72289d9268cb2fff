"""Issue 20: a check cell is the verdict made visible, and blocked is not failed. The student states of the
issue, each judged by the verdict, by the notebook's cells (papermill, the notebook's own kernel) and by the
grade's views; and every refusal leaves the root byte-identical."""

from __future__ import annotations

from distro_helpers import distro_fixture, write_root
from grading_helpers import CONFIG, TOOLKIT, check, failed_steps, lab_root, run_all, tree
from mistake_helpers import CGROUP, edit
from runbook_lib.steps.lines import Rule, same

UNQUOTED = ('[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]',
            "[plugins.io.containerd.grpc.v1.cri.containerd.runtimes.nvidia]")


def _statuses(results) -> dict:
    return {n: r.status for n, r in results.items()}


def _string_cgroup(root) -> None:
    edit(root, CONFIG, CGROUP, CGROUP.replace("= true", '= "true"'))


def test_the_one_rule_accepts_what_a_student_may_write_differently():
    parsed = Rule(lists=("RUNTIMES",))
    assert same(parsed, "VERSION=2\nRUNTIMES=runc,nvidia\n", "VERSION=2\nRUNTIMES=nvidia,runc\n")
    assert same(parsed, "VERSION=2\nRUNTIMES=runc, nvidia", "VERSION=2\nRUNTIMES=nvidia,runc\n")
    assert same(Rule(unordered=True), "kind\ncdiVersion\n", "cdiVersion\nkind\n")
    assert not same(parsed, "VERSION=2\nRUNTIMES=runc\n", "VERSION=2\nRUNTIMES=nvidia,runc\n")
    assert not same(parsed, 'VERSION="2"\nRUNTIMES=nvidia,runc\n', "VERSION=2\nRUNTIMES=nvidia,runc\n")
    assert not same(Rule(), "SYSTEMD_CGROUP=True\n", "SYSTEMD_CGROUP=true\n")


def test_runtimes_in_the_configs_order_pass_the_verdict(tmp_path):
    root = lab_root(tmp_path)
    (root / TOOLKIT / "parsed.txt").write_text("VERSION=2\nRUNTIMES=runc,nvidia\n")
    results = check(root)
    assert failed_steps(results) == [] and results[5].status == "passed", results[5].text()


def test_runtimes_in_the_configs_order_pass_the_notebooks_cell(tmp_path):
    from helpers import run_notebook, step_records
    root = lab_root(tmp_path)
    (root / TOOLKIT / "parsed.txt").write_text("VERSION=2\nRUNTIMES=runc,nvidia")  # no final newline either
    nb = run_notebook(root, tmp_path / "out.ipynb", mode="check")
    records = step_records(nb)
    assert records[5]["status"] == "passed", records[5]
    cell = next(o for c in nb.cells if c.cell_type == "code" and 'rb.expect("parse")' in c.source
                for o in c.outputs if "RUNTIMES=" in o.get("data", {}).get("text/plain", ""))
    assert "✓ parsed.txt: RUNTIMES=runc,nvidia (순서 무관 / any order)" in cell["data"]["text/plain"]  # the config's order


def _report_copied_from_the_broken_config(root) -> None:
    report = root / TOOLKIT / "report.txt"
    report.write_text(report.read_text().replace("SYSTEMD_CGROUP=true", 'SYSTEMD_CGROUP="true"'))


def test_a_string_systemdcgroup_fails_step_3_only_and_5_and_8_already_right_pass(tmp_path):
    """Issue 41: parsed.txt and report.txt were blocked even when they already held what they must once step 3
    is fixed; judged against the corrected input, they pass (a student's right work keeps its points)."""
    root = lab_root(tmp_path)
    _string_cgroup(root)
    results = check(root)
    assert failed_steps(results) == [3]
    assert [n for n, s in _statuses(results).items() if s == "blocked"] == []
    assert results[5].status == "passed" and results[8].status == "passed"


def test_a_report_that_records_the_broken_config_keeps_its_point_and_says_step_3(tmp_path):
    """Issue 51: report.txt parsed from the student's own config (the string "true" step 3 fails for) reports
    those files faithfully: step 8 passes, with a warning that names step 3; one mistake costs one step."""
    root = lab_root(tmp_path)
    _string_cgroup(root)
    _report_copied_from_the_broken_config(root)
    results = check(root)
    assert failed_steps(results) == [3]
    assert [n for n, s in _statuses(results).items() if s == "blocked"] == []
    assert results[8].status == "passed", results[8].text()
    (p,) = results[8].problems
    assert (p.code, p.values["step"], p.is_error) == ("file.faithful_to_earlier_step", 3, False)
    assert '"true"' not in p.fix.en and "SYSTEMD_CGROUP" not in p.fix.en  # the rule to apply, not the answer


def test_a_report_copied_from_the_broken_config_passes_and_one_of_its_own_fails(tmp_path):
    root = lab_root(tmp_path)
    _string_cgroup(root)
    report = root / TOOLKIT / "report.txt"
    report.write_text(report.read_text().replace("SYSTEMD_CGROUP=true", 'SYSTEMD_CGROUP="true"'))
    assert check(root)[8].status == "passed"  # it records the broken config faithfully: step 3's mistake
    report.write_text(report.read_text().replace("HANDLER=nvidia", "HANDLER=nvida"))
    results = check(root)
    assert results[8].status == "failed"  # a mistake of its own, its fix from the corrected inputs
    (p,) = results[8].problems
    # the wrong line named with its rule (issue 51), not every expected line; never the broken config's value
    assert "line 5: HANDLER must be the handler parsed" in p.fix.en and "line 4: SYSTEMD_CGROUP must be" in p.fix.en
    assert "RUNTIME_TYPE" not in p.fix.en, p.fix.en  # only the wrong lines
    assert '"true"' not in p.fix.en and "HANDLER=nvidia" in p.what.en


def test_the_unquoted_header_is_one_finding(tmp_path):
    root = lab_root(tmp_path)
    edit(root, CONFIG, *UNQUOTED)
    results = check(root)
    assert failed_steps(results) == [2]
    assert [p.code for p in results[2].problems] == ["runtime.misplaced.unquoted_header"]
    assert all(r.status != "failed" for n, r in results.items() if n != 2)


def test_step_8s_fix_never_holds_an_empty_or_quoted_value(tmp_path):
    for name, change in [("unquoted", lambda r: edit(r, CONFIG, *UNQUOTED)), ("string", _string_cgroup)]:
        root = lab_root(tmp_path / name)
        change(root)
        (root / TOOLKIT / "report.txt").unlink()
        for p in check(root)[8].problems:
            fix = p.fix.en + p.fix.ko
            assert "RUNTIME_TYPE= " not in fix and "=/" not in fix and '="' not in fix and not fix.rstrip().endswith("="), fix


def test_the_grade_counts_one_mistake_once_on_the_labs_fixed_total(tmp_path):
    from runbook_lib.grading import class_view, feedback, gradescope
    from runbook_lib.grading.model import ClassGrade, Student
    root = lab_root(tmp_path)
    _string_cgroup(root)
    _report_copied_from_the_broken_config(root)
    records = [r.as_record() for r in check(root).values()]
    student = Student("kim", str(root), False, records)
    results = gradescope.student_results(student)
    tests = results["tests"]
    assert (results["score"], results["max_score"]) == (7.0, 8.0)  # 3 failed; 8 reports the student's files: kept
    assert [t["number"] for t in tests if t["score"] == 0] == ["3"]
    assert [t for t in tests if t["extra_data"]["runbook_status"] == "blocked"] == []
    mistakes = class_view.common_mistakes(ClassGrade(tmp_path / "out", [student]))
    assert [m.key for m in mistakes] == ["options.systemd_cgroup.string"]
    page = feedback.render(student)
    assert "고칠 단계가 1개" in page and "one step to fix" in page
    assert page.count("3단계를 먼저 고치세요") == 0 and page.count("fix step 3 first") == 0


def _unclosed_quote(root) -> None:
    edit(root, CONFIG, 'BinaryName = "/usr/bin/nvidia-container-runtime"', 'BinaryName = "/usr/bin/nvidia-container-runtime')


def test_junit_skips_a_blocked_step_with_fix_step_n_first(tmp_path):
    """A config tomllib cannot read (step 2's syntax error): the steps that read it truly cannot be judged, and
    wait for step 2, each a JUnit <skipped> saying so."""
    from runbook_lib.grading import junit
    from runbook_lib.grading.model import ClassGrade, Student
    root = lab_root(tmp_path)
    _unclosed_quote(root)
    results = check(root)
    blocked = [n for n, s in _statuses(results).items() if s == "blocked"]
    assert failed_steps(results) == [2] and blocked
    student = Student("kim", str(root), False, [r.as_record() for r in results.values()])
    text = junit.render(ClassGrade(tmp_path, [student])).decode()
    assert text.count("<skipped") == len(blocked) == text.count("fix step 2 first") and text.count("<failure") == 1


def test_microk8s_with_only_its_template_refuses_before_any_write(tmp_path):
    root = write_root(tmp_path, {"var/snap/microk8s/current/args/containerd-template.toml":
                                 distro_fixture("microk8s/containerd-template.toml")})
    before = tree(root)
    results = run_all(root)
    assert [p.code for p in results[1].problems] == ["distro.not_generated"], results[1].text()
    assert {k: v for k, v in tree(root).items() if not k.startswith("run")} == \
        {k: v for k, v in before.items() if not k.startswith("run")}
    assert not (root / "root").exists()


def test_runbook_grade_passes_runtimes_in_the_configs_order(tmp_path):
    from runbook_lib.grading.grade import grade_class
    root = lab_root(tmp_path / "kim")
    (root / TOOLKIT / "parsed.txt").write_text("VERSION=2\nRUNTIMES=runc,nvidia\n")
    result = grade_class([str(root)], tmp_path / "grades", {"mode": "check"})
    (student,) = result.students
    assert student.ok and student.failed_steps() == [], [s.get("message") for s in student.failed_steps()]
    assert next(s for s in student.steps if s["id"] == "parse")["status"] == "passed"


def _config_root(tmp_path):
    from grading_helpers import GOOD
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_bytes(GOOD.read_bytes())
    return root


def _with_prepare_check(monkeypatch, more: str) -> None:
    """Step 1's check cell with one more assertion, for every entry point (the engine reads Step.check)."""
    import dataclasses

    from runbook_lib.engine import mode as modes
    steps = tuple(dataclasses.replace(s, check=s.check + more) if s.id == "prepare" else s for s in modes.APPLY.steps)
    monkeypatch.setitem(modes.MODES, "apply", dataclasses.replace(modes.APPLY, steps=steps))  # apply's driver runs them


def test_a_check_cell_that_would_fail_after_the_writes_refuses_before_the_first(tmp_path, monkeypatch):
    """The preflight runs the cells' own assertions on the planned state (runbook_lib/engine/check_cells.py): here a
    step 1 cell asserting a file no step writes."""
    import pytest
    from runbook_lib import notebook as nb
    fine = _config_root(tmp_path / "fine")
    rb = nb.start(root=str(fine))  # the cells as they are: the plan is not refused
    assert not rb.refused
    rb.finish()
    root = _config_root(tmp_path / "refused")
    before = tree(root)
    _with_prepare_check(monkeypatch, '\n    expect.true(rb.read(rb.tk("nothing.txt")), "a file no step writes exists")')
    with pytest.raises(nb.Refused) as refused:
        nb.start(root=str(root))
    assert "a file no step writes exists" in refused.value.text
    assert {k: v for k, v in tree(root).items() if not k.startswith("run")} == \
        {k: v for k, v in before.items() if not k.startswith("run")}


def test_the_engine_judges_the_check_cells_on_the_plan_without_the_notebook(tmp_path, monkeypatch):
    """`runbook lab-init --finished`, the CLI and the tests plan with the engine's Run, not the notebook's run
    context: the check cells' assertions refuse their plan too, before the first write."""
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run
    root = _config_root(tmp_path / "refused")
    before = tree(root)
    _with_prepare_check(monkeypatch, '\n    expect.true(rb.read(rb.tk("nothing.txt")), "a file no step writes exists")')
    rb = Run(validate(root=str(root))).start()
    try:
        rb.preflight()
    finally:
        rb.finish()
    assert rb.refused
    (refusal,) = rb.plans["prepare"].refusals
    assert refusal.code == "expect.failed.condition" and "a file no step writes exists" in str(refusal.values["assertion"])
    assert {k: v for k, v in tree(root).items() if not k.startswith("run")} == \
        {k: v for k, v in before.items() if not k.startswith("run")}


def _cell_text(nb, marker: str) -> str:
    return "".join(o.get("data", {}).get("text/plain", "") + o.get("text", "")
                   for c in nb.cells if c.cell_type == "code" and marker in c.source for o in c.outputs)


def test_the_notebook_passes_a_report_faithful_to_the_students_config(tmp_path):
    import papermill as pm
    import pytest
    from helpers import run_notebook, step_records
    root = lab_root(tmp_path)
    _string_cgroup(root)
    _report_copied_from_the_broken_config(root)
    out = tmp_path / "out.ipynb"
    with pytest.raises(pm.PapermillExecutionError):  # check mode: the last cell fails the run (step 3)
        run_notebook(root, out, mode="check")
    import nbformat
    nb = nbformat.read(out, as_version=4)
    records = step_records(nb)
    assert {n: r["status"] for n, r in records.items() if n in (3, 5, 8)} == {3: "failed", 5: "passed", 8: "passed"}
    summary = _cell_text(nb, "nb.summary(rb)")
    assert "blocked" not in summary, summary


def test_the_notebook_shows_blocked_steps_as_fix_step_n_first(tmp_path):
    import papermill as pm
    import pytest
    from helpers import run_notebook, step_records
    root = lab_root(tmp_path)
    _unclosed_quote(root)
    out = tmp_path / "out.ipynb"
    with pytest.raises(pm.PapermillExecutionError):
        run_notebook(root, out, mode="check")
    import nbformat
    nb = nbformat.read(out, as_version=4)
    records = step_records(nb)
    blocked = [n for n, r in records.items() if r["status"] == "blocked"]
    assert records[2]["status"] == "failed" and 5 in blocked and 8 in blocked
    summary = _cell_text(nb, "nb.summary(rb)")
    assert summary.count("blocked  (2단계를 먼저 고치세요 / fix step 2 first)") == len(blocked), summary


def test_step_5s_cell_shows_tomllib_load_and_its_syntax_error(tmp_path):
    import papermill as pm
    import pytest
    import nbformat
    from helpers import run_notebook, step_records
    root = lab_root(tmp_path)
    edit(root, CONFIG, 'BinaryName = "/usr/bin/nvidia-container-runtime"', 'BinaryName = "/usr/bin/nvidia-container-runtime')
    out = tmp_path / "out.ipynb"
    with pytest.raises(pm.PapermillExecutionError):
        run_notebook(root, out, mode="check")
    nb = nbformat.read(out, as_version=4)
    parse = step_records(nb)[5]
    assert parse["status"] == "blocked" and parse["problems"][0]["line"] == 34, parse["problems"]
    cell = _cell_text(nb, 'rb.expect("parse")')
    assert "✗ tomllib.load(open('/etc/containerd/config.toml', 'rb'))" in cell and "{}" not in cell


import os as _os  # noqa: E402
import pytest as _pytest  # noqa: E402


@_pytest.mark.parametrize("kind", ["fifo", "folder", "ten-mb"])
def test_a_refusal_at_step_1_blocks_the_steps_that_follow_from_it_and_no_fix_names_its_folders(tmp_path, kind):
    """Step 1 refuses (the config is a FIFO, a folder, 10 MB): the folders it would have made (the toolkit folder)
    are not planned, so steps 6 and 7, whose files go there, are blocked by step 1, never failed, and no fix
    says `mkdir -p /root/toolkit` (run as printed on a lab machine, it would make the machine's own)."""
    from reliability_helpers import CONFIG as CFG, make_root
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run

    root = make_root(tmp_path)
    config = root / CFG
    if kind == "fifo":
        _os.mkfifo(config)
    elif kind == "folder":
        config.mkdir()
    else:
        config.write_bytes(b"x = 1\n" * (10 * 1024 * 1024 // 6))  # content, not comments (a comment block is read)
    rb = Run(validate(root=str(root))).start()
    try:
        rb.preflight()
        results = [rb.run(step) for step in rb.steps]
    finally:
        rb.finish()
    failed = [r.id for r in results if r.status == "failed"]
    assert failed == ["prepare"], [(r.id, r.status) for r in results]
    assert {r.id: r.status for r in results if r.id in ("cdi", "runtimeclass")} == {"cdi": "blocked",
                                                                                     "runtimeclass": "blocked"}
    fixes = [f"{p.fix.ko} {p.fix.en}" for r in results for p in r.problems if p.fix]
    assert [f for f in fixes if "mkdir" in f] == []
