"""notebooks/run.ipynb as a student uses it in JupyterLab: one kernel that lives on between runs, cells run
one by one, re-run, or run again after a parameter was edited (tests/student_kernel.py drives a real kernel)."""

from __future__ import annotations

import pytest

from helpers import put_course_fixture, tree_state, held
from student_kernel import Student


@pytest.fixture
def student():
    s = Student()
    yield s
    s.close()


def on_course_root(student, root) -> None:
    """The course's base config under ``root``, and the parameters cell run with ``root`` set, as a student
    who has just opened the notebook does."""
    put_course_fixture(root)
    student.cell("params")
    student.run(params(root))


def params(root, **more) -> str:
    return "\n".join([f"root = {str(root)!r}"] + [f"{k} = {v!r}" for k, v in more.items()])


def test_running_the_validation_cell_again_starts_a_new_run_at_once(student, tmp_path):
    # the student edits the parameters cell and runs it and the validation cell again: the kernel still holds
    # the first run's lock, which must not make the new run wait for it (it waited 600 s, then failed)
    on_course_root(student, tmp_path)
    assert student.cell("start")[1] is None
    assert student.cell("prepare")[1] is None
    student.run(params(tmp_path, systemd_cgroup=False))
    shown, error = student.cell("start", timeout=20)
    assert error is None, shown
    assert "mode = apply" in shown
    assert student.run("print(rb.p.systemd_cgroup)")[0].strip() == "False"
    for step in ("runtime", "runtime?", "options", "options?"):
        shown, error = student.cell(step)
        assert error is None, shown
    assert "SystemdCgroup = false" in (tmp_path / "etc/containerd/config.toml").read_text()


def test_a_cell_of_the_run_a_failed_validation_ended_writes_nothing_and_says_so(student, tmp_path):
    # the validation cell run again stops on a bad value: `rb` still names the earlier run, whose lock is gone;
    # its cells must write nothing, and say to run from the validation cell, in both languages
    on_course_root(student, tmp_path)
    student.cell("start")
    student.run("mode = 'chek'")
    shown, error = student.cell("start")
    assert error == "ParameterError" and "chek" in shown
    before = tree_state(tmp_path)
    for name in ("prepare", "prepare?", "runtime", "summary"):
        shown, error = student.cell(name)
        assert error == "RunbookError", shown
        assert "이전 실행" in shown and "an earlier run" in shown and "nb.start" in shown
        assert "Traceback" not in shown and "runbook_lib" not in shown
    assert tree_state(tmp_path) == before


def test_a_check_cell_run_again_after_a_fix_by_hand_says_what_the_disk_holds_now(student, tmp_path):
    # step 3's check fails on SystemdCgroup = "true"; the student fixes the file by hand and runs only that check
    # cell again: it passed, yet still said FAILED with the old finding's words
    on_course_root(student, tmp_path)
    for name in ("start", "prepare", "prepare?", "runtime", "runtime?", "options"):
        assert student.cell(name)[1] is None, name
    config = tmp_path / "etc/containerd/config.toml"
    good = config.read_text()
    config.write_text(good.replace('SystemdCgroup = true\n\n    [plugins."io.containerd.grpc.v1.cri".cni]',
                                   'SystemdCgroup = "true"\n\n    [plugins."io.containerd.grpc.v1.cri".cni]'))
    shown, error = student.cell("options?")
    assert error == "StepFailed" and "[FAILED] 3." in shown and 'SystemdCgroup is the string "true"' in shown
    config.write_text(good)
    shown, error = student.cell("options?")
    assert error is None, shown
    assert "[FAILED]" not in shown and "the string" not in shown
    for name in ("default", "default?", "parse", "parse?"):
        assert student.cell(name)[1] is None, name
    shown, _ = student.run("nb.summary(rb)")
    assert "failed" not in shown.split("요약 / summary", 1)[1], shown


def test_cells_run_before_the_write_cells_they_follow_write_nothing_and_say_which_cell_to_run(student, tmp_path):
    # a check cell run before its write cell wrote the step itself (from inside the check) and then failed its
    # own assertions, read before that write; a write cell run before step 1's said "unchanged" for a write that
    # failed. Each now writes nothing, shows what the disk holds, names the cell to run first, and the run goes on.
    on_course_root(student, tmp_path)
    student.cell("start")
    before = tree_state(tmp_path)
    for name in ("runtime?", "runtime", "prepare?"):
        shown, error = student.cell(name)
        assert error == "OutOfOrder", shown
        assert "1단계" in shown and "step 1" in shown and "rb.write(plan)" in shown, shown
        assert "unchanged" not in shown and "Traceback" not in shown
    assert "(없음 / missing)" in student.cell("runtime?")[0]  # the assertion, as the disk answers it now
    assert tree_state(tmp_path) == before
    shown = {}
    for name in ("prepare", "prepare?", "runtime", "runtime?", "options", "options?"):
        shown[name], error = student.cell(name)
        assert error is None, shown[name]
    assert "[CHANGED] 2." in shown["runtime?"], shown["runtime?"]  # the write cell, run in its turn, wrote
    assert "[UNCHANGED] 3." in shown["options?"], shown["options?"]  # step 2 wrote the options with the table


def test_a_write_cell_run_twice_says_unchanged_and_the_run_still_says_what_it_changed(student, tmp_path):
    on_course_root(student, tmp_path)
    student.cell("start")
    first, _ = student.cell("prepare")
    assert "created" in first and "written: /etc/containerd/config.toml" in first
    again, error = student.cell("prepare")
    assert error is None and "nothing to change (unchanged)" in again
    assert "created" not in again and "written:" not in again  # no folder was made the second time
    student.cell("runtime")
    config = tmp_path / "etc/containerd/config.toml"
    written = config.read_bytes()
    backups = sorted(config.parent.glob("config.toml.runbook-backup-*"))
    again, error = student.cell("runtime")
    assert error is None and "nothing to change (unchanged)" in again and "backup" not in again
    assert config.read_bytes() == written and sorted(config.parent.glob("config.toml.runbook-backup-*")) == backups
    shown, error = student.cell("runtime?")
    assert error is None and "[CHANGED] 2." in shown  # this run did change it: the summary must say so


def test_a_file_edited_by_hand_after_the_plan_is_not_overwritten_and_the_cell_says_to_plan_again(student, tmp_path):
    on_course_root(student, tmp_path)
    for name in ("start", "prepare", "prepare?"):
        student.cell(name)
    config = tmp_path / "etc/containerd/config.toml"
    config.write_text(config.read_text().replace('"overlayfs"', '"native"'))
    edited = config.read_bytes()
    shown, error = student.cell("runtime")
    assert config.read_bytes() == edited
    assert "unchanged" not in shown  # it said "nothing to change (unchanged)" for a write that did not happen
    assert "not written" in shown and "the file changed after the plan was made: /etc/containerd/config.toml" in shown
    assert str(tmp_path) not in shown.split("not written", 1)[1] and "nb.start" in shown
    student.cell("start")  # as the fix says: the plan made again from the file as it is now
    for name in ("prepare", "prepare?", "runtime", "runtime?"):
        shown, error = student.cell(name)
        assert error is None, shown
    assert '"native"' in config.read_text() and "runtimes.nvidia]" in config.read_text()


def test_the_summary_cell_run_early_does_not_say_the_run_finished_and_going_on_takes_the_lock_again(student, tmp_path):
    # run after step 1 only, the last cell said "[FINISHED] every step ran and passed" and recorded ok: true,
    # then released the lock, and the student's next write cells wrote without it
    on_course_root(student, tmp_path)
    for name in ("start", "prepare", "prepare?"):
        student.cell(name)
    assert held(tmp_path)
    shown, error = student.cell("summary")
    assert error == "StepFailed", shown
    assert "FINISHED" not in shown and "every step ran and passed" not in shown
    assert "2, 3, 4, 5, 6, 7, 8, 9, restart" in shown and "아직 셀을 실행하지 않은 단계" in shown
    assert student.run("from runbook_lib.notebook import not_run; print(not_run(rb))")[0].strip().startswith("[2, 3")
    assert not held(tmp_path)
    assert student.cell("runtime")[1] is None
    assert held(tmp_path)  # the student went on: the write is under the lock again
    for name in list(student.cells)[5:-1]:
        shown, error = student.cell(name)
        assert error is None, (name, shown)
    shown, error = student.cell("summary")
    assert error is None and "[FINISHED]" in shown and "아직" not in shown, shown
    assert not held(tmp_path)


def test_a_parameter_edited_without_the_validation_cell_stops_the_cells_and_says_to_run_it(student, tmp_path):
    # the student changes mode and runtime_name and runs the parameters cell, then goes on below: the run still
    # had the old values, so step 2 wrote the nvidia runtime in apply mode while the cells read "gpu"
    on_course_root(student, tmp_path)
    for name in ("start", "prepare", "prepare?"):
        student.cell(name)
    student.run("runtime_name = 'gpu'\nmode = 'check'")
    before = tree_state(tmp_path)
    for name in ("runtime", "runtime?", "summary"):
        shown, error = student.cell(name)
        assert error == "RunbookError", shown
        assert 'mode "apply" → "check"' in shown and 'runtime_name "nvidia" → "gpu"' in shown and "nb.start" in shown
        assert "파라미터 셀의 값이" in shown and "'" not in shown.split("→")[0][-12:]
    assert tree_state(tmp_path) == before
    student.run("runtime_name = 'nvidia'\nmode = 'apply'")  # back to the values the run started with
    for name in ("runtime", "runtime?"):
        assert student.cell(name)[1] is None, name


def test_a_misspelt_step_name_in_a_cell_is_said_so_not_taken_for_remove_mode(student, tmp_path):
    on_course_root(student, tmp_path)
    student.cell("start")
    for code in ('rb.plan("runtim")', 'with rb.expect("runtim") as expect:\n    pass'):
        shown, error = student.run(code)
        assert error == "RunbookError", shown
        assert 'there is no step "runtim"' in shown and "runtime, options" in shown and "그런 단계는 없습니다" in shown
        assert "remove 모드에서는" not in shown


def test_a_failed_assertion_of_a_cell_names_the_file_not_a_table_header_in_brackets(student, tmp_path):
    # a student's own assertion in step 3's cell: its finding was placed at
    # "[[plugins...runtimes.nvidia.options]]", an array-of-tables header in TOML, not a place in a file
    on_course_root(student, tmp_path)
    for name in ("start", "prepare", "prepare?", "runtime", "runtime?", "options"):
        student.cell(name)
    shown, error = student.run('with rb.expect("options") as expect:\n    expect.equal(nvidia, "options.BinaryName", "/x")')
    assert error == "StepFailed"
    assert "✗ [/etc/containerd/config.toml] 확인이 실패했습니다: options.BinaryName" in shown, shown
    assert "[[" not in shown


def test_the_restart_cell_run_before_the_steps_decides_nothing_and_says_which_cell_to_run(student, tmp_path):
    on_course_root(student, tmp_path)
    for name in ("start", "prepare", "prepare?"):
        student.cell(name)
    shown, error = student.cell("restart")
    assert error == "OutOfOrder" and "step 2" in shown and "2단계" in shown, shown
    assert student.run("print('restart' in rb.results)")[0].strip() == "False"


def test_a_step_cell_run_after_a_refused_validation_cell_says_to_run_the_cells_above_it(student, tmp_path):
    # the validation cell refused, so `rb` is not defined: from that cell on (nb.start installs it with IPython's
    # public set_custom_exc), a step's cell says which cells to run, not a NameError traceback
    on_course_root(student, tmp_path)
    student.run(params(tmp_path, mode="nonsense"))
    assert student.cell("start")[1] is not None
    shown, error = student.cell("runtime")
    assert error == "NameError"
    assert "rb" in shown and "nb.start" in shown and "아직" in shown and "Run All Above" in shown
    assert "Traceback" not in shown, shown
    shown, error = student.run("undefined_thing + 1")  # any other name: IPython's own traceback, as always
    assert error == "NameError" and "undefined_thing" in shown and "nb.start" not in shown


def test_a_step_cell_run_first_in_a_fresh_kernel_is_ipythons_own_name_error(student):
    # the notebook runs in ipykernel's stock kernel: before its validation cell, nothing of the runbook is loaded
    shown, error = student.cell("runtime")
    assert error == "NameError" and "'rb' is not defined" in shown


def test_a_path_without_its_leading_slash_in_a_students_own_read_is_said_so_not_read_as_missing(student, tmp_path):
    # rb.read("etc/containerd/config.toml") returned None, so the student's own check said only "False"
    on_course_root(student, tmp_path)
    assert student.cell("start")[1] is None
    shown, error = student.run('rb.read("etc/containerd/config.toml")')
    assert error == "ParameterError"
    assert "경로는 '/' 로 시작해야 합니다" in shown and "paths must start with '/'" in shown
    (tmp_path / "etc").mkdir(exist_ok=True)
    (tmp_path / "etc/hello.txt").write_text("hi\n")
    assert student.run('print(rb.read("/etc/hello.txt"))')[0] == "hi\n\n"
