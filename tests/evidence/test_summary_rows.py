"""Which run is a row of `runbook summary`, and what its row says, for the archives that are not one run per label:
two roots (two hosts, two pods of one node, two folders) under one label, the latest of two runs of one root,
manifests that leave a field out (an older runbook, a hand-copied archive), and failure messages that hold a
quote or a line break. In-process, so that mutation testing (docs/TESTING.md) sees every branch:
tests/fleet/test_fleet_summary.py runs the same rules through the CLI, in another process."""

from __future__ import annotations

import json
from pathlib import Path

from runbook_lib.evidence import summary


def _man(label=None, *, root="/srv/lab", host=None, started="2026-01-02T03:04:05+00:00", ok=True, steps=None,
         **extra):
    man = {"kind": "run", "ok": ok, "mode": "apply", "steps": steps or [], "error": None, **extra}
    if label is not None:
        man["label"] = label
    if root is not None:
        man["root"] = root
    if host is not None:
        man["host"] = host
    if started is not None:
        man["started_at"] = started
    return man


def _put(archive: Path, rel: str, man: dict) -> None:
    folder = archive / rel
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps(man), encoding="utf-8")


def _rows(archive: Path) -> dict[str, tuple[str, bool]]:
    """label -> (run, ok) of every row, in the table's order."""
    return {r.label: (r.run, r.ok) for r in summary.summarize(archive).rows}


def _step(n, sid, status, ko="틀림", en="wrong"):
    return {"step": n, "id": sid, "status": status, "message": {"ko": ko, "en": en}}


# --- two roots under one label ---------------------------------------------------------------------------------

def test_the_same_root_on_two_hosts_is_two_rows_named_by_their_hosts(tmp_path):
    _put(tmp_path, "lab/r1", _man("lab", host={"hostname": "gpu1"}))
    _put(tmp_path, "lab/r2", _man("lab", host={"hostname": "gpu2"}, ok=False))
    assert _rows(tmp_path) == {"gpu1-srv-lab": ("r1", True), "gpu2-srv-lab": ("r2", False)}


def test_a_pods_root_belongs_to_its_node_not_to_the_pods_host_name(tmp_path):
    # two rollouts of the DaemonSet on gpu1 (new pod names) are one root: the later run is its row
    _put(tmp_path, "node/r1", _man("node", root="/host", host={"hostname": "runbook-aaaa", "node_name": "gpu1"},
                                   started="2026-01-01T00:00:00+00:00", ok=False))
    _put(tmp_path, "node/r2", _man("node", root="/host", host={"hostname": "runbook-bbbb", "node_name": "gpu1"}))
    # and one pod on another node, under the same label: a row of its own
    _put(tmp_path, "node/r3", _man("node", root="/host", host={"hostname": "runbook-aaaa", "node_name": "gpu2"},
                                   ok=False))
    assert _rows(tmp_path) == {"node (gpu1-host)": ("r2", True), "node (gpu2-host)": ("r3", False)}


def test_two_folders_of_one_name_on_one_host_are_told_apart_by_their_parents(tmp_path):
    _put(tmp_path, "kim/r1", _man("kim", root="/srv/a/kim", host={"hostname": "lab"}))
    _put(tmp_path, "kim/r2", _man("kim", root="/srv/b/kim", host={"hostname": "lab"}, ok=False))
    assert _rows(tmp_path) == {"a-kim": ("r1", True), "b-kim": ("r2", False)}


def test_the_root_comes_from_the_parameters_when_the_manifest_has_none(tmp_path):
    _put(tmp_path, "kim/r1", _man("kim", root=None, host={"hostname": "lab"}, parameters={"root": "/srv/a/kim"}))
    _put(tmp_path, "kim/r2", _man("kim", root=None, host={"hostname": "lab"}, parameters={"root": "/srv/b/kim"}))
    assert _rows(tmp_path) == {"a-kim": ("r1", True), "b-kim": ("r2", True)}


def test_a_relative_root_is_read_from_the_top_folder(tmp_path):
    # an older manifest wrote "srv/a/kim": the same root as "/srv/a/kim", never one under the summary's folder
    _put(tmp_path, "kim/r1", _man("kim", root="srv/a/kim", host={"hostname": "lab"},
                                  started="2026-01-01T00:00:00+00:00", ok=False))
    _put(tmp_path, "kim/r2", _man("kim", root="/srv/a/kim", host={"hostname": "lab"}))
    _put(tmp_path, "kim/r3", _man("kim", root="srv/b/kim", host={"hostname": "lab"}))
    assert _rows(tmp_path) == {"a-kim": ("r2", True), "b-kim": ("r3", True)}


def test_a_run_that_recorded_no_root_is_of_the_nodes_own_root(tmp_path):
    _put(tmp_path, "node/r1", _man("node", root=None, host={"hostname": "gpu1"}))
    _put(tmp_path, "node/r2", _man("node", root=None, host={"hostname": "gpu2"}))
    _put(tmp_path, "node/r3", _man("node", root="/srv/lab", host={"hostname": "gpu1"}))
    assert _rows(tmp_path) == {"node (gpu1)": ("r1", True), "node (gpu2)": ("r2", True),
                               "node (lab)": ("r3", True)}


def test_a_run_that_recorded_no_host_is_told_apart_as_an_unknown_host(tmp_path):
    _put(tmp_path, "node/r1", _man("node", root="/", host=None))
    _put(tmp_path, "node/r2", _man("node", root="/", host={}))  # an empty record: no host either
    _put(tmp_path, "node/r3", _man("node", root="/", host={"hostname": "gpu1"}))
    assert _rows(tmp_path) == {"node (?)": ("r2", True), "node (gpu1)": ("r3", True)}


def test_a_manifest_without_its_label_goes_by_its_folder_in_both_layouts(tmp_path):
    _put(tmp_path, "kim/20260102T030405Z", _man(None, root="/srv/a/kim", host={"hostname": "lab"}))  # runbook run
    _put(tmp_path, "lee", _man(None, root="/srv/a/lee", host={"hostname": "lab"}))  # runbook grade: DIR/<label>/
    assert _rows(tmp_path) == {"kim": ("20260102T030405Z", True), "lee": ("2026-01-02T03:04:05", True)}


# --- the latest of two runs of one root ------------------------------------------------------------------------

def test_the_latest_run_is_the_one_that_started_last_whatever_its_folder_is_called(tmp_path):
    _put(tmp_path, "kim/a", _man("kim", started="2026-01-03T00:00:00+00:00"))
    _put(tmp_path, "kim/b", _man("kim", started="2026-01-01T00:00:00+00:00", ok=False))
    _put(tmp_path, "kim/c", _man("kim", started="2026-01-02T00:00:00+00:00", ok=False))
    assert _rows(tmp_path) == {"kim": ("a", True)}


def test_runs_that_started_at_the_same_time_the_last_folder_is_the_latest(tmp_path):
    _put(tmp_path, "kim/20260102T030405Z", _man("kim", ok=False))
    _put(tmp_path, "kim/20260102T030405Z-2", _man("kim"))
    _put(tmp_path, "lee/20260102T030405Z-2", _man("lee", root="/srv/lee", ok=False))
    _put(tmp_path, "lee/20260102T030405Z-1", _man("lee", root="/srv/lee"))
    assert _rows(tmp_path) == {"kim": ("20260102T030405Z-2", True), "lee": ("20260102T030405Z-2", False)}


def test_a_run_without_its_start_time_is_older_than_any_with_one(tmp_path):
    # read first or read last, a run that recorded no start is never the latest of one that did
    _put(tmp_path, "kim/a", _man("kim", started=None, ok=False))
    _put(tmp_path, "kim/b", _man("kim", started="2026-01-01T00:00:00+00:00"))
    _put(tmp_path, "lee/a", _man("lee", root="/srv/lee", started="2026-01-01T00:00:00+00:00"))
    _put(tmp_path, "lee/b", _man("lee", root="/srv/lee", started=None, ok=False))
    _put(tmp_path, "sun/a", _man("sun", root="/srv/sun", started=None, ok=False))
    _put(tmp_path, "sun/b", _man("sun", root="/srv/sun", started=None))
    assert _rows(tmp_path) == {"kim": ("b", True), "lee": ("a", True), "sun": ("b", True)}


def test_the_same_run_copied_twice_keeps_the_copy_read_first(tmp_path):
    # one root's run under two labels' folders, same label inside, same start and folder name: one row, the first
    _put(tmp_path, "a/20260102T030405Z", _man("kim"))
    _put(tmp_path, "b/20260102T030405Z", _man("kim", ok=False))
    table = summary.summarize(tmp_path)
    assert [(r.label, r.run, r.ok) for r in table.rows] == [("kim", "20260102T030405Z", True)]


# --- what a row says --------------------------------------------------------------------------------------------

def test_a_row_keeps_when_its_run_started_and_its_mode(tmp_path):
    _put(tmp_path, "kim/r1", _man("kim", started="2026-01-02T03:04:05.123456+00:00"))
    _put(tmp_path, "lee/r1", _man("lee", root="/srv/lee", started=None, mode=None))
    rows = summary.summarize(tmp_path).rows
    assert [(r.label, r.started_at, r.mode) for r in rows] == [
        ("kim", "2026-01-02T03:04:05.123456+00:00", "apply"), ("lee", "", "")]


def test_a_graded_student_without_a_start_time_shows_an_empty_run(tmp_path):
    _put(tmp_path, "kim", _man("kim", kind="grade", started=None))
    _put(tmp_path, "lee", _man("lee", root="/srv/lee", kind="grade", started="2026-01-02T03:04:05.5+00:00"))
    table = summary.summarize(tmp_path)
    assert table.students is True
    assert [(r.label, r.run) for r in table.rows] == [("kim", ""), ("lee", "2026-01-02T03:04:05")]


def test_an_archive_of_runs_and_of_gradings_is_about_hosts(tmp_path):
    _put(tmp_path, "kim", _man("kim", kind="grade"))
    _put(tmp_path, "node/r1", _man("node", root="/"))
    assert summary.summarize(tmp_path).students is False
    (tmp_path / "empty").mkdir()
    assert summary.summarize(tmp_path / "empty").students is False  # no runs at all: nothing says students


def test_the_columns_are_the_steps_by_number_then_by_id(tmp_path):
    steps = [_step(10, "ten", "passed"), _step(2, "zeta", "passed"), _step(2, "alpha", "passed"),
             _step("restart", "restart", "skipped"), _step(None, "extra", "passed"), _step("2.5", "half", "passed")]
    _put(tmp_path, "kim/r1", _man("kim", steps=steps))
    # a second run numbers a step again: the first manifest read that has the step names its column
    _put(tmp_path, "lee/r1", _man("lee", root="/srv/lee", steps=[_step(7, "ten", "passed")]))
    assert summary.summarize(tmp_path).columns == [
        ("alpha", "2 alpha"), ("zeta", "2 zeta"), ("half", "2.5 half"), ("ten", "10 ten"), ("extra", "extra"),
        ("restart", "restart")]


def test_every_status_has_its_cell_and_an_unknown_one_is_a_question_mark(tmp_path):
    statuses = ["passed", "unchanged", "changed", "failed", "skipped", "blocked", "exploded", None]
    steps = [_step(n, f"s{n}", st) for n, st in enumerate(statuses, 1)]
    _put(tmp_path, "kim/r1", _man("kim", steps=steps, ok=False))
    _put(tmp_path, "lee/r1", _man("lee", root="/srv/lee", steps=steps[:1]))
    rows = {r.label: r.cells for r in summary.summarize(tmp_path).rows}
    assert rows["kim"] == {"s1": "PASS", "s2": "PASS", "s3": "changed", "s4": "FAIL", "s5": "skip",
                           "s6": "blocked", "s7": "?", "s8": "?"}
    assert rows["lee"] == {"s1": "PASS", **{f"s{n}": "-" for n in range(2, 9)}}


# --- every failed step's message ---------------------------------------------------------------------------------

def _failures(man: dict) -> list[dict[str, str]]:
    return summary._failures(man)


def test_every_failed_and_blocked_step_is_listed_in_order(tmp_path):
    man = _man("kim", ok=False, steps=[_step(1, "prepare", "passed"), _step(2, "runtime", "failed", "표", "table"),
                                       _step(3, "options", "blocked", "2단계 먼저", "fix step 2 first"),
                                       _step(4, "default", "skipped")])
    assert _failures(man) == [{"ko": "[2 runtime] 표", "en": "[2 runtime] table"},
                              {"ko": "[3 options] 2단계 먼저", "en": "[3 options] fix step 2 first"}]


def test_an_older_manifest_names_its_failure_in_failed_step_alone():
    man = _man("kim", ok=False, steps=[_step(1, "prepare", "passed")],
               failed_step=_step(2, "runtime", "failed", "표가 없음", "no table"))
    assert _failures(man) == [{"ko": "[2 runtime] 표가 없음", "en": "[2 runtime] no table"}]


def test_a_failed_step_without_its_message_text_still_names_the_step():
    man = _man("kim", ok=False, steps=[{"step": 2, "id": "runtime", "status": "failed"},
                                       {"step": 3, "id": "options", "status": "failed", "message": {"en": "only en"}},
                                       {"step": 4, "id": "default", "status": "failed", "message": {"ko": "한국어만"}}])
    assert _failures(man) == [{"ko": "[2 runtime] ", "en": "[2 runtime] "},
                              {"ko": "[3 options] ", "en": "[3 options] only en"},
                              {"ko": "[4 default] 한국어만", "en": "[4 default] "}]


def test_a_run_that_passed_lists_no_failure_whatever_its_steps_say():
    assert _failures(_man("kim", ok=True, steps=[_step(2, "runtime", "failed")])) == []


def test_a_run_that_stopped_or_never_finished_says_why():
    stopped = _man("kim", ok=False, error={"ename": "DeadKernelError", "evalue": "Kernel died"})
    cut = _man("kim", ok=False, error={"kind": "unfinished", "ename": "X", "evalue": "/a/run"})
    assert _failures(stopped) == [{"ko": "노트북이 멈췄습니다 — DeadKernelError: Kernel died",
                                   "en": "the notebook stopped — DeadKernelError: Kernel died"}]
    assert _failures(cut)[0]["en"].endswith(": /a/run") and "X" not in _failures(cut)[0]["en"]
    assert _failures(_man("kim", ok=False)) == [{"ko": "요약 셀까지 가지 못했습니다",
                                                 "en": "the run did not reach its summary cell"}]


def test_a_markdown_cell_keeps_quotes_and_puts_a_line_break_on_one_line(tmp_path):
    steps = [_step(2, "runtime", "failed", '값이 "runc"\n입니다', 'value is "runc"\nnot \'nvidia\'')]
    _put(tmp_path, 'say "hi"/r1', _man('say "hi"', ok=False, steps=steps))
    row = summary.render(summary.summarize(tmp_path), "markdown").splitlines()[2]
    assert row == ('| say "hi" | FAILED | apply | r1 | FAIL | [2 runtime] 값이 "runc" 입니다<br>'
                   '[2 runtime] value is "runc" not \'nvidia\' |')
