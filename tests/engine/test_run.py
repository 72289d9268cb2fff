"""The engine's rules (runbook_lib/engine/run.py) that mutation testing (`make mutate`) found no test for.

- Only a failed apply run withdraws report.txt: a check run and a refused run write nothing, and a root with no
  report has nothing to withdraw.
- ``effective_with`` is the config containerd would read with the given changes over what is planned so far;
  outside a preflight nothing is planned, so it is the disk's config with the changes.
"""

from __future__ import annotations

import tomllib

import pytest

from helpers import FIXTURES as CONTAINERD_FIXTURES
from grading_helpers import CONFIG, TOOLKIT, broken, lab_root
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run
from runbook_lib.fs.bounded_read import FileTooLarge

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


def test_a_later_step_names_an_earlier_steps_finding_briefly_at_the_same_place(tmp_path):
    """An unreadable config breaks every step after the one that says so in full: each later step refers to it
    (depends.earlier), at the same file, line and column, with the earlier finding's own words in it."""
    from grading_helpers import check

    results = check(lab_root(tmp_path, broken("toml-syntax-error.toml")))
    first = results[2].problems[0]
    assert first.code == "toml.unclosed_quote" and first.line is not None and first.col is not None
    later = [(n, p) for n, r in results.items() if n > 2 for p in r.problems if p.code == "depends.earlier"]
    assert {n for n, _ in later} >= {3, 4, 5}
    for n, p in later:
        assert (p.path, p.line, p.col) == (first.path, first.line, first.col), n
        assert p.values["step"] == 2
        assert first.what.en in p.what.en and first.what.ko in p.what.ko, n


def test_a_result_names_every_file_it_read_and_wrote_with_the_hash_of_its_bytes(tmp_path):
    """The evidence of an apply run: each file a step read or wrote, by its lab path and its path on this
    machine, with the SHA-256 of the bytes read before and written after."""
    import hashlib

    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    from grading_helpers import run_all

    results = run_all(root)
    files = [f for r in results.values() for f in r.files]
    written = [f for f in files if f["action"] == "written"]
    assert {"/" + CONFIG, f"/{TOOLKIT}/report.txt"} <= {f["path"] for f in written}
    for f in files:
        assert f["host_path"] == str(root / f["path"].lstrip("/"))
    last = {f["path"]: f for f in written}  # a file written twice holds the later bytes
    for path, f in last.items():
        assert f["sha256"] == hashlib.sha256((root / path.lstrip("/")).read_bytes()).hexdigest(), path
    reads = [f for f in results[2].files if f["action"] == "read" and f["path"] == "/" + CONFIG]
    assert reads and reads[0]["sha256"] is not None  # step 1 copied the base config before step 2 read it


# --- apply's promise asked of containerd before the first write, and the record written once ------------------

def test_a_plan_that_changes_what_containerd_reads_beside_the_runtime_is_refused_by_step_9_before_any_write(
        tmp_path):
    """The engine asks containerd (1.6 here, in this process) about the planned state before the first write:
    a planned drop-in that changes a setting no rule looks at (the garbage collector's) refuses the run, as step
    9's refusal, with the root left as it was (tests/real/test_real_plan_guard.py asks every containerd)."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parents[1] / "real"))
    import realenv
    from test_real_plan_guard import _files, _planting, _root

    realenv.need_root()
    binary = realenv.need_program("containerd")
    root = _root(tmp_path, 2)
    before = _files(root)
    rb = Run(validate(root=str(root), mode="apply", containerd_bin=binary, default_runtime="keep")).start()
    rb.steps = (*rb.steps, _planting(2))
    try:
        rb.preflight()
    finally:
        rb.finish()
    assert [(step.id, p.code) for step, p in rb.refusals()] == [("containerd", "containerd.plan.changed_beside")]
    assert _files(root) == before


def test_the_record_of_what_apply_writes_is_written_once_before_the_first_write(tmp_path, monkeypatch):
    """Every planned write goes in the record (fs/applied_record.py) in one write before the first: not again
    before each step's write (the same record, written again and fsynced for nothing)."""
    from runbook_lib.fs import applied_record

    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_bytes(broken("systemdcgroup-string.toml").replace(b'SystemdCgroup = "true"',
                                                                            b"SystemdCgroup = true"))
    calls = []
    real = applied_record.note_planned
    monkeypatch.setattr(applied_record, "note_planned", lambda target, writes, *more: calls.append(len(writes)) or
                        real(target, writes, *more))
    rb = Run(validate(root=str(root), mode="apply")).start()
    try:
        rb.preflight()
        writes = sum(1 for s in rb.steps for w in rb.plans[s.id].writes if w.changed)
        rb.run_all()
    finally:
        rb.finish()
    assert rb.ok(), [(r.id, [p.code for p in r.problems]) for r in rb.failed_steps()]
    assert calls == [writes], (calls, writes)


def _apply_beside_an_unwritable_record(root):
    rb = Run(validate(root=str(root), mode="apply")).start()
    try:
        results = rb.run_all()
        again = rb.verdict(rb.step("prepare"))  # the check cell run again keeps it too
    finally:
        rb.finish()
    assert not any(r.failed for r in results.values()), [r.text() for r in results.values() if r.failed]
    said = [(r.step, p) for r in results.values() for p in r.problems if p.is_a("remove.record_unwritten")]
    assert [(step, p.severity) for step, p in said] == [(1, "warning")]
    assert [p.code for p in again.problems] == ["remove.record_unwritten"]
    return said[0][1]


def _said_as(p, record: str, reason_en: str, reason_ko: str) -> None:
    assert p.path == record
    assert p.what.en == (f"could not write the record of what the runbook changed ({record}): {reason_en}; "
                         "mode=remove cannot undo what this run wrote.")
    assert p.what.ko == (f"런북이 바꾼 것을 적는 기록({record})을 쓰지 못했습니다: {reason_ko}. "
                         "mode=remove 는 이번 실행이 쓴 것을 되돌리지 못합니다.")
    assert p.fix.en == f"make {record}'s folder writable, then run again."


def test_a_record_that_cannot_be_written_is_said_by_the_verdict_of_the_step_that_wrote_first(tmp_path):
    """The record (fs/applied_record.py) cannot be written when a file stands where its folder should be: the
    run goes on, and the step whose write came first says so, as a warning, in its verdict (the commit's own
    finding, kept by the verdict as a failed write is), once, with the cause in each language's words."""
    from runbook_lib.fs import applied_record

    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    folder = root / applied_record.RECORD.lstrip("/").rsplit("/", 1)[0]
    folder.parent.mkdir(parents=True)
    folder.write_text("not a folder\n")
    p = _apply_beside_an_unwritable_record(root)
    _said_as(p, applied_record.RECORD,
             f"a file stands where a folder should be, so applied.json cannot be read or written: {folder}",
             f"폴더가 있어야 할 자리에 파일이 있어서 applied.json 파일을 읽거나 쓸 수 없습니다: {folder}")


def test_a_record_the_system_refuses_is_said_with_the_systems_words(tmp_path, monkeypatch):
    """An error of the system itself (a read-only /var/lib: EROFS) is said as the system says it."""
    import errno

    from runbook_lib.fs import applied_record

    def read_only(target, writes, *more):
        raise OSError(errno.EROFS, "Read-only file system", applied_record.RECORD)

    monkeypatch.setattr(applied_record, "note_planned", read_only)
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    said = f"[Errno 30] Read-only file system: '{applied_record.RECORD}'"
    _said_as(_apply_beside_an_unwritable_record(root), applied_record.RECORD, said, said)


# --- the commit of one step: what it says, what it skips, what it records -----------------------------------

def _empty_lab_root(tmp_path):
    """A root whose config is containerd 1.6's own default: no nvidia runtime yet."""
    from helpers import FIXTURES

    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_bytes((FIXTURES / "containerd-1.6.20-default.toml").read_bytes())
    return root


def test_check_mode_says_what_apply_would_do_and_apply_says_what_it_does(tmp_path):
    root = _empty_lab_root(tmp_path)
    for mode, said in (("check", "apply mode would: {}"), ("apply", "{}")):
        rb = Run(validate(root=str(root), mode=mode)).start()
        try:
            plan = rb.preflight()["runtime"]
            result = rb.commit(rb.step("runtime"))
        finally:
            rb.finish()
        assert plan.changed, mode
        assert result.message.en == said.format(plan.message.en), mode
        assert result.message.ko == (f"apply 모드라면 이렇게 합니다: {plan.message.ko}" if mode == "check"
                                     else plan.message.ko), mode


def test_a_step_that_only_makes_a_folder_has_changed_the_root(tmp_path):
    """The config is there and right, the toolkit folder is not: step 1 makes the folder and writes no file,
    and says it changed the root."""
    root = lab_root(tmp_path)
    import shutil
    shutil.rmtree(root / TOOLKIT)
    rb = Run(validate(root=str(root), mode="apply")).start()
    try:
        rb.preflight()
        assert not any(w.changed for w in rb.plans["prepare"].writes)  # the config is there: no file to write
        result = rb.commit(rb.step("prepare"))
    finally:
        rb.finish()
    assert result.status == "changed"
    assert (root / TOOLKIT).is_dir()


def test_the_write_cell_run_again_writes_nothing_and_still_says_what_it_changed(tmp_path):
    """The notebook's write cell run twice (JupyterLab): the second finds its own bytes there, writes nothing, and
    keeps the first's outcome, backup and files."""
    root = _empty_lab_root(tmp_path)
    rb = Run(validate(root=str(root), mode="apply")).start()
    try:
        rb.preflight()
        rb.commit(rb.step("prepare"))
        first = rb.commit(rb.step("runtime"))
        before = sorted(p.name for p in (root / "etc/containerd").iterdir())
        again = rb.commit(rb.step("runtime"))
    finally:
        rb.finish()
    assert not again.failed and again.status == "changed", again.text()
    assert (again.backup, again.files) == (first.backup, first.files)
    assert sorted(p.name for p in (root / "etc/containerd").iterdir()) == before  # no second backup


def test_a_step_writes_each_of_its_files_that_is_not_yet_as_planned(tmp_path):
    """Step 7 with variants writes three RuntimeClasses; the first already right, the others missing: the first
    is left as it is and the others are written."""
    root = _empty_lab_root(tmp_path)
    rb = Run(validate(root=str(root), mode="apply", variants=True)).start()
    try:
        plans = rb.preflight()
        writes = plans["runtimeclass"].writes
        assert len(writes) == 3
        first = root / writes[0].lab_path.lstrip("/")
        first.parent.mkdir(parents=True, exist_ok=True)
        first.write_bytes(writes[0].new)
        for step in rb.steps[:7]:
            rb.commit(step)
    finally:
        rb.finish()
    assert [(root / w.lab_path.lstrip("/")).read_bytes() for w in writes] == [w.new for w in writes]


def test_a_backup_is_named_in_the_result_with_the_hash_of_the_bytes_it_keeps(tmp_path):
    import hashlib

    root = _empty_lab_root(tmp_path)
    old = (root / CONFIG).read_bytes()
    from grading_helpers import run_all

    results = run_all(root)
    backups = [f for f in results[2].files if f["action"] == "backup"]
    assert [f["sha256"] for f in backups] == [hashlib.sha256(old).hexdigest()]
    assert (root / backups[0]["path"].lstrip("/")).read_bytes() == old
    assert backups[0]["path"] == results[2].backup


def test_a_refused_run_says_of_each_step_without_a_refusal_of_its_own_that_it_did_not_run(tmp_path):
    """A TOML syntax error refuses the run before its first write: step 2 says why, the steps its finding
    blocks say so, and every other step is skipped and says it did not run because another step refused."""
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_bytes(broken("toml-syntax-error.toml"))
    rb = Run(validate(root=str(root), mode="apply")).start()
    try:
        results = rb.run_all()
    finally:
        rb.finish()
    (refusal,) = rb.plans["runtime"].refusals
    assert rb.plans["runtime"].message == refusal.what  # the plan cell says why, in the parser's words
    assert refusal.what.en.startswith("TOML syntax error (line 34, column 60)")
    quiet = [r for r in results.values() if not r.problems]
    assert [r.step for r in quiet] == [1, 3, 6, 7, 9, "restart", "pod"]
    for r in quiet:
        assert r.status == "skipped", r.id
        assert r.message.en == "not run: another step refused, so the run stopped before its first write.", r.id
        assert r.message.ko == "실행하지 않았습니다: 다른 단계가 거부해서, 아무것도 쓰기 전에 실행을 멈췄습니다."


def test_what_each_steps_plan_says_on_containerds_own_default_config(tmp_path):
    """The first cell's plan, step by step, in both languages: what each step will do and where."""
    root = _empty_lab_root(tmp_path)
    rb = Run(validate(root=str(root), mode="apply")).start()
    try:
        plans = rb.preflight()
    finally:
        rb.finish()
    said = {step: (p.message.en, p.message.ko, p.subject) for step, p in plans.items()}
    tk = f"/{TOOLKIT}"
    assert said["options"] == (
        'the options are written by step 2, together with the runtime table: BinaryName = '
        '"/usr/bin/nvidia-container-runtime", SystemdCgroup = true',
        'options 는 2단계가 런타임 테이블과 함께 한 번에 씁니다: BinaryName = "/usr/bin/nvidia-container-runtime", '
        'SystemdCgroup = true',
        '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]')
    assert said["default"] == ("the default runtime is runc; it is not changed.", "기본 런타임은 runc 입니다. 바꾸지 않습니다.",
                               f"{tk}/default.txt")
    assert said["parse"] == ("read with tomllib: VERSION=2, RUNTIMES=runc,nvidia",
                             "tomllib 로 읽은 값: VERSION=2, RUNTIMES=runc,nvidia", f"{tk}/parsed.txt")
    assert said["runtimeclass"] == ("RuntimeClass nvidia (handler nvidia)", "RuntimeClass nvidia 를 씁니다 (handler 는 nvidia)",
                                    f"{tk}/runtimeclass.yaml")
    report = "CONFIG_VERSION=2, RUNTIME=nvidia, RUNTIME_TYPE=io.containerd.runc.v2, SYSTEMD_CGROUP=true, HANDLER=nvidia"
    assert said["report"] == (report, report, f"{tk}/report.txt")
    assert said["containerd"][0] == (
        f"skipped: root ({root}) is a lab sandbox and the containerd_bin parameter is empty, so containerd itself was "
        "not asked. To ask it, pass -p containerd_bin /usr/bin/containerd (needs root and unshare).")
    assert said["restart"][:2] == (
        "containerd is not restarted in a lab root: restarting is outside a lab root (a real node, root /).",
        "실습 루트에서는 containerd 를 재시작하지 않습니다. 재시작은 실습 루트 밖(실제 노드, root 가 /)의 일입니다.")
    assert [w.lab_path for w in plans["default"].writes + plans["parse"].writes + plans["report"].writes] == [
        f"{tk}/default.txt", f"{tk}/parsed.txt", f"{tk}/report.txt"]
    assert [w.new for w in plans["default"].writes] == [b"DEFAULT=runc\nWHY=runtimeclass\n"]
    assert [w.new for w in plans["parse"].writes] == [b"VERSION=2\nRUNTIMES=runc,nvidia\n"]


# --- the preflight: what is asked of the plan before any write, and only by a run that will write -----------

def _preflight_asks(tmp_path, monkeypatch, config: bytes, mode: str) -> dict[str, int]:
    """How many times the preflight asked each question of the plan: the room on disk, containerd's reading,
    the notebook's own judgement (judge_on_plan, which the notebook's run context fills in); and what even root
    could not write, where the plan's writes go."""
    from runbook_lib.engine import guard as plan_guard
    from runbook_lib.fs import writable

    asked = {"space": 0, "containerd": 0, "judge": 0}
    real_space, real_guard = writable.refuse_when_short_of_space, plan_guard.refusal

    def space(*args, **kw):
        asked["space"] += 1
        return real_space(*args, **kw)

    def guard(run):
        asked["containerd"] += 1
        return real_guard(run)

    class Judged(Run):
        def judge_on_plan(self):
            asked["judge"] += 1

    monkeypatch.setattr(writable, "refuse_when_short_of_space", space)
    monkeypatch.setattr(plan_guard, "refusal", guard)
    root = tmp_path / f"{mode}-{len(list(tmp_path.iterdir()))}" / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_bytes(config)
    rb = Judged(validate(root=str(root), mode=mode)).start()
    try:
        rb.preflight()
    finally:
        rb.finish()
    return asked


def test_the_plan_is_asked_of_the_disk_and_containerd_once_only_by_a_run_that_will_write(tmp_path, monkeypatch):
    from helpers import FIXTURES

    node = (FIXTURES / "containerd-1.6.20-default.toml").read_bytes()
    assert _preflight_asks(tmp_path, monkeypatch, node, "apply") == {"space": 1, "containerd": 1, "judge": 1}
    assert _preflight_asks(tmp_path, monkeypatch, node, "check") == {"space": 0, "containerd": 0, "judge": 0}
    # refused before: nothing more is asked of a plan that will not be written
    broken_toml = broken("toml-syntax-error.toml")
    assert _preflight_asks(tmp_path, monkeypatch, broken_toml, "apply") == {"space": 0, "containerd": 0, "judge": 0}


def test_what_even_root_cannot_write_is_refused_in_apply_only(tmp_path, monkeypatch):
    """A read-only mount or chattr +i where a plan writes (fs/writable.py): apply refuses before its first
    write; check mode writes nothing, so it is no refusal there."""
    from runbook_lib.fs import writable
    from runbook_lib.findings.problem import Problem

    stuck = Problem.of("write.failed.name_too_long", "/etc/containerd", lab="/etc/containerd", size=1, limit=1)
    monkeypatch.setattr(writable, "_root_cannot", lambda target, plan, will_exist: [stuck] if plan.writes else [])
    for mode, refused in (("apply", True), ("check", False)):
        root = _empty_lab_root(tmp_path / mode)
        rb = Run(validate(root=str(root), mode=mode)).start()
        try:
            rb.preflight()
        finally:
            rb.finish()
        assert (stuck in [p for _, p in rb.refusals()]) is refused, mode


def test_every_step_judged_on_the_plan_is_judged_wherever_it_stands_among_the_others(tmp_path):
    """The preflight judges each step's verdict on the planned state, passing over the steps that ask a program
    or act on the node; a step judged on the plan that stands after those is judged too: its finding refuses
    the run before any write."""
    from runbook_lib.findings.messages import Msg
    from runbook_lib.findings.problem import Problem
    from runbook_lib.fs.plan import Plan
    from runbook_lib.steps.base import Step

    said = Problem.of("write.failed.name_too_long", "/x", lab="/x", size=300, limit=255)
    late = Step(99, "late", Msg("늦은 단계", "a late step"), lambda run: Plan(Msg("계획", "plan")), lambda run: [said])
    root = _empty_lab_root(tmp_path)
    rb = Run(validate(root=str(root), mode="apply")).start()
    rb.steps = (*rb.steps, late)  # after step 9, the restart and the pod, which are not judged on the plan
    try:
        rb.preflight()
    finally:
        rb.finish()
    assert [(step.id, p.code) for step, p in rb.refusals()] == [("late", "write.failed.name_too_long")]


def test_a_step_with_a_finding_is_failed_whatever_it_would_say_of_itself(tmp_path):
    """A step's own words (what it learnt, why it would be skipped) are said only when it found nothing wrong:
    with a finding, it is failed and says the finding."""
    from runbook_lib.findings.messages import Msg
    from runbook_lib.findings.problem import Problem
    from runbook_lib.fs.plan import Plan
    from runbook_lib.steps.base import Step

    said = Problem.of("write.failed.name_too_long", "/x", lab="/x", size=300, limit=255)
    odd = Step(99, "odd", Msg("단계", "a step"), lambda run: Plan(Msg("계획", "plan")), lambda run: [said],
               skipped=lambda run: Msg("건너뜀", "skipped"), message=lambda run: Msg("배운 것", "learnt"),
               judged_in_plan=False)
    rb = Run(validate(root=str(_empty_lab_root(tmp_path)), mode="check")).start()
    rb.steps = (*rb.steps, odd)
    try:
        rb.preflight()
        result = rb.run(odd)
    finally:
        rb.finish()
    assert (result.status, result.message) == ("failed", said.what)


@pytest.mark.parametrize("fixture, header", [
    ("containerd-1.6.20-default.toml", '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]'),
    ("containerd-2.0-docs-config-v3.toml", "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.nvidia]"),  # its quotes
    ("v1-no-version-line.toml", '[plugins.cri.containerd.runtimes.nvidia]'),
])
def test_step_2s_plan_is_about_the_runtime_table_at_the_header_of_the_configs_version(tmp_path, fixture, header):
    """What step 2 is about, shown beside its plan: the runtime's table header where containerd of the config's
    version looks it up, quoted as the file quotes its own, before the write and after it."""
    root = lab_root(tmp_path, (CONTAINERD_FIXTURES / fixture).read_bytes())
    for _ in range(2):  # the runtime to add, then the runtime already there
        rb = Run(validate(root=str(root), mode="apply")).start()
        try:
            plan = rb.preflight()["runtime"]
            rb.run_all()
        finally:
            rb.finish()
        assert plan.subject == header


# --- what a run reads: each file of the root within its kind's limit, said by its lab path -------------------


@pytest.mark.parametrize("toolkit_dir", ["/root/toolkit", "/root/toolkit/"])
@pytest.mark.parametrize("name, size, kind, limit", [
    ("runtimeclass.yaml", 100 * 1024, "a RuntimeClass", "64.0 KiB"),  # would pass as a CDI spec by its suffix
    ("report.txt", 1024 * 1024 + 1, "a lab result file", "1.0 MiB"),
    ("cdi-keys.yaml", 1024 * 1024 + 1, "a lab result file", "1.0 MiB"),
])
def test_a_toolkit_file_is_read_within_its_own_kinds_limit_and_said_by_its_lab_path(tmp_path, toolkit_dir, name,
                                                                                     size, kind, limit):
    """The runbook's own files are known by the toolkit folder, however the parameter ends: the RuntimeClass by its
    name, every other file there as a lab result file, whatever its suffix."""
    root = tmp_path / "root"
    (root / "root/toolkit").mkdir(parents=True)
    with open(root / "root/toolkit" / name, "wb") as f:
        f.truncate(size)  # sparse: its size is what the limit judges, before a byte is read
    rb = Run(validate(root=str(root), toolkit_dir=toolkit_dir))
    lab = rb.tk(name)
    assert lab == f"/root/toolkit/{name}"
    with pytest.raises(FileTooLarge) as raised:
        rb.read_bytes(lab)
    p = raised.value.problem
    assert (p.path, p.values["kind"]["en"], p.values["limit"]) == (lab, kind, limit)


@pytest.mark.parametrize("lab, size, kind, limit", [
    ("/etc/cdi/nvidia.yaml", 600 * 1024, "a CDI spec", "512.0 KiB"),
    ("/etc/containerd/config.toml", 1024 * 1024 + 1, "a containerd config", "1.0 MiB"),
])
def test_a_file_outside_the_toolkit_folder_is_read_within_the_limit_its_name_says(tmp_path, lab, size, kind, limit):
    root = tmp_path / "root"
    (root / lab.lstrip("/")).parent.mkdir(parents=True)
    with open(root / lab.lstrip("/"), "wb") as f:
        f.truncate(size)
    with pytest.raises(FileTooLarge) as raised:
        Run(validate(root=str(root))).read_bytes(lab)
    p = raised.value.problem
    assert (p.path, p.values["kind"]["en"], p.values["limit"]) == (lab, kind, limit)


def test_a_file_that_is_not_utf8_is_read_as_text_with_its_bad_bytes_replaced(tmp_path):
    """A student's default.txt saved in another encoding: its text is read with U+FFFD where a byte is not UTF-8,
    so the check says the value is wrong instead of stopping on a decoding error."""
    root = tmp_path / "root"
    (root / "root/toolkit").mkdir(parents=True)
    (root / "root/toolkit/default.txt").write_bytes(b"DEFAULT=r\xfcnc\n")
    assert Run(validate(root=str(root))).read_text("/root/toolkit/default.txt") == "DEFAULT=r\ufffdnc\n"


def test_the_effective_config_is_read_once_until_one_of_its_files_changes(tmp_path, monkeypatch):
    """Every step reads containerd's effective config, most of them more than once: a run reads the files again
    only when one changed (a new inode, size or mtime), from its first reading on."""
    from runbook_lib.engine import run as engine_run  # the run reads the config with containerd/effective.py

    reads = []
    real = engine_run.load_effective
    monkeypatch.setattr(engine_run, "load_effective", lambda *a, **kw: reads.append(a) or real(*a, **kw))
    root = _empty_lab_root(tmp_path)
    rb = Run(validate(root=str(root)))
    first = rb.effective()
    assert rb.effective() is first
    assert len(reads) == 1
    (root / CONFIG).write_bytes((root / CONFIG).read_bytes() + b"\n# changed\n")
    assert rb.effective() is not first
    assert rb.effective() is rb.effective()
    assert len(reads) == 2


def test_relock_leaves_a_run_that_never_took_the_lock_as_it_is(tmp_path):
    root = _empty_lab_root(tmp_path)
    rb = Run(validate(root=str(root)))
    rb.relock()
    assert not (root / "run/lock").exists()


def test_relock_takes_the_lock_again_after_finish_released_it_and_leaves_a_held_lock_as_it_is(tmp_path):
    """A student goes on in JupyterLab after a failed check stopped the run (its lock released): the cell that writes
    next takes the root's lock again, so a second apply on the same root waits for it."""
    from helpers import held

    root = _empty_lab_root(tmp_path)
    rb = Run(validate(root=str(root))).start()

    rb.finish()
    assert held(root) is False
    rb.relock()
    assert held(root) is True
    taken = rb._lock.fd
    rb.relock()  # held already: not taken a second time (that would wait on itself)
    assert rb._lock.fd == taken
    rb.finish()
    assert held(root) is False


def test_a_check_run_starts_on_a_root_without_creating_anything_there(tmp_path):
    """Check mode writes nothing, its lock included: it only waits for an apply that holds the root's lock."""
    root = _empty_lab_root(tmp_path)
    before = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
    rb = Run(validate(root=str(root), mode="check")).start()
    rb.finish()
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*")) == before



def test_an_apply_run_starts_by_sweeping_its_own_leftover_temporary_files_from_every_folder_it_writes(tmp_path):
    """A run killed mid-write leaves `.runbook-tmp.*` files beside what it wrote: the config's folder, its conf.d
    drop-ins, the toolkit folder, the record's and the CDI spec's; the next apply takes them away, and only them."""
    from runbook_lib.fs.applied_record import RECORD
    from runbook_lib.fs.safe_write import TMP_PREFIX

    root = _empty_lab_root(tmp_path)
    folders = ["etc/containerd", "etc/containerd/conf.d", TOOLKIT, RECORD.lstrip("/").rsplit("/", 1)[0], "etc/cdi"]
    for folder in folders:
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / f"{TMP_PREFIX}config.toml.x1y2").write_bytes(b"half a write")
        (root / folder / "kept.toml").write_bytes(b"someone's")
    Run(validate(root=str(root))).start().finish()
    for folder in folders:
        assert [p.name for p in (root / folder).iterdir() if p.name.startswith(TMP_PREFIX)] == [], folder
        assert (root / folder / "kept.toml").read_bytes() == b"someone's", folder


@pytest.mark.parametrize("toolkit_dir", ["/root/toolkit", "/root/toolkit/", "/srv/LAB-X/", "/srv/LAB-X//"])
def test_a_toolkit_files_lab_path_has_one_slash_before_its_name_however_the_parameter_ends(tmp_path, toolkit_dir):
    """Only the slashes the parameter ends with are taken off: the folder's own name is kept to its last letter."""
    folder = toolkit_dir.rstrip("/")
    assert Run(validate(root=str(tmp_path), toolkit_dir=toolkit_dir)).tk("report.txt") == f"{folder}/report.txt"
