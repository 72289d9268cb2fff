"""`runbook summary` as a person reads it, whole: the text table, the markdown and the HTML page of an archive
whose hosts end every way a run can (passed, two failed steps, a notebook that stopped, a run killed before its
manifest, one that never reached its summary; an older run behind a newer one; a Korean label, a message with
markup), and the footer of a class that passed. tests/fleet/test_fleet_summary.py runs the same through the CLI;
this file pins every character, so a changed column, width, escape or word fails here."""

from __future__ import annotations

import json
from pathlib import Path

from runbook_lib.evidence import summary


def _step(n, sid, status, ko="메시지", en="message"):
    return {"step": n, "id": sid, "title": {"ko": f"{sid} 단계", "en": f"{sid} step"}, "status": status,
            "message": {"ko": ko, "en": en}}


def _manifest(label, ok, steps, *, kind="run", started="2026-01-02T03:04:05+00:00", error=None, mode="apply"):
    failed = [s for s in steps if s["status"] == "failed"]
    return {"schema": "x", "kind": kind, "label": label, "ok": ok, "mode": mode, "root": f"/srv/{label}",
            "host": {"hostname": "lab"}, "started_at": started, "steps": steps, "error": error,
            "failed_step": failed[0] if failed else None, "parameters": {}}


def _write(archive: Path, label: str, run: str, man: dict | None) -> None:
    folder = archive / label / run
    folder.mkdir(parents=True)
    if man is None:  # killed before its manifest: the notebook alone
        (folder / "run.ipynb").write_text(json.dumps({"metadata": {"papermill": {"parameters": {"root": "/srv/x"}}}}))
    else:
        (folder / "manifest.json").write_text(json.dumps(man))


def archive(base: Path) -> Path:
    good = [_step(1, "prepare", "changed"), _step(2, "runtime", "unchanged"), _step(3, "options", "passed"),
            _step(9, "containerd", "skipped"), _step("restart", "restart", "skipped")]
    _write(base, "node-a", "20260101T000000Z", _manifest("node-a", False, [_step(1, "prepare", "failed")],
                                                         started="2026-01-01T00:00:00+00:00"))
    _write(base, "node-a", "20260102T030405Z", _manifest("node-a", True, good))
    _write(base, "노드-b", "20260102T030405Z", _manifest("노드-b", False, [
        _step(1, "prepare", "passed"), _step(2, "runtime", "failed", "표가 <b>없음</b>", "no table | <b>x</b>"),
        _step(3, "options", "failed", "값이 틀림", "wrong value")], mode="check"))
    _write(base, "node-c", "20260102T030405Z", _manifest("node-c", False, [], error={
        "kind": "papermill", "ename": "DeadKernelError", "evalue": "Kernel died"}))
    _write(base, "node-d", "20260102T030405Z", None)
    _write(base, "node-e", "20260102T030405Z", _manifest("node-e", False, [_step(1, "prepare", "passed")]))
    return base


def students_archive(base: Path) -> Path:
    for label in ("kim", "lee"):
        folder = base / label
        folder.mkdir(parents=True)
        (folder / "manifest.json").write_text(json.dumps(_manifest(label, True, [_step(1, "prepare", "passed")],
                                                                   kind="grade", mode="check")))
    return base


TEXT = (
    '호스트/host  결과/result  모드/mode  실행/run          1 prepare  2 runtime  3 options  9 containerd  restart\n'
    '-----------  -----------  ---------  ----------------  ---------  ---------  ---------  ------------  -------\n'
    'node-a       OK           apply      20260102T030405Z  changed    PASS       PASS       skip          skip\n'
    'node-c       FAILED       apply      20260102T030405Z  -          -          -          -             -\n'
    'node-d       FAILED                  20260102T030405Z  -          -          -          -             -\n'
    'node-e       FAILED       apply      20260102T030405Z  PASS       -          -          -             -\n'
    '노드-b       FAILED       check      20260102T030405Z  PASS       FAIL       FAIL       -             -\n'
    'node-c: 노트북이 멈췄습니다 — DeadKernelError: Kernel died\n'
    '        the notebook stopped — DeadKernelError: Kernel died\n'
    'node-d: 실행이 끝나지 않았습니다 (읽을 수 있는 manifest.json 이 없음: 중단되었거나 강제 종료, 또는 아직 실행 중): {archive}/node-d/20260102T030405Z\n'
    '        the run did not finish (no readable manifest.json: interrupted, killed, or still running): {archive}/node-d/20260102T030405Z\n'
    'node-e: 요약 셀까지 가지 못했습니다\n'
    '        the run did not reach its summary cell\n'
    '노드-b: [2 runtime] 표가 <b>없음</b>\n'
    '        [2 runtime] no table | <b>x</b>\n'
    '        [3 options] 값이 틀림\n'
    '        [3 options] wrong value\n'
    '호스트 5대 중 4대 실패 / 4 of 5 hosts failed\n'
)
MARKDOWN = (
    '| 호스트/host | 결과/result | 모드/mode | 실행/run | 1 prepare | 2 runtime | 3 options | 9 containerd | restart | 실패 내용/failure |\n'
    '|---|---|---|---|---|---|---|---|---|---|\n'
    '| node-a | OK | apply | 20260102T030405Z | changed | PASS | PASS | skip | skip |  |\n'
    '| node-c | FAILED | apply | 20260102T030405Z | - | - | - | - | - | 노트북이 멈췄습니다 — DeadKernelError: Kernel died<br>the notebook stopped — DeadKernelError: Kernel died |\n'
    '| node-d | FAILED |  | 20260102T030405Z | - | - | - | - | - | 실행이 끝나지 않았습니다 (읽을 수 있는 manifest.json 이 없음: 중단되었거나 강제 종료, 또는 아직 실행 중): {archive}/node-d/20260102T030405Z<br>the run did not finish (no readable manifest.json: interrupted, killed, or still running): {archive}/node-d/20260102T030405Z |\n'
    '| node-e | FAILED | apply | 20260102T030405Z | PASS | - | - | - | - | 요약 셀까지 가지 못했습니다<br>the run did not reach its summary cell |\n'
    '| 노드-b | FAILED | check | 20260102T030405Z | PASS | FAIL | FAIL | - | - | [2 runtime] 표가 &lt;b&gt;없음&lt;/b&gt;<br>[2 runtime] no table \\| &lt;b&gt;x&lt;/b&gt;<br>[3 options] 값이 틀림<br>[3 options] wrong value |\n'
    '\n'
    '호스트 5대 중 4대 실패 / 4 of 5 hosts failed\n'
)
HTML = (
    '<!DOCTYPE html>\n'
    '<html lang="ko"><head><meta charset="utf-8">\n'
    '<title>런북 실행 요약 / runbook summary</title>\n'
    '<style>body{font-family:sans-serif}table{border-collapse:collapse;word-break:keep-all}td,th{border:1px solid #999;padding:4px 8px}th{white-space:nowrap}.PASS,.OK{background:#d7f5d7}.FAIL,.FAILED{background:#f8c8c8}.changed{background:#fff2b3}</style></head><body>\n'
    '<h1>런북 실행 요약 / runbook summary</h1>\n'
    '<table><thead><tr>\n'
    '<th>호스트/host</th>\n'
    '<th>결과/result</th>\n'
    '<th>모드/mode</th>\n'
    '<th>실행/run</th>\n'
    '<th>1 prepare</th>\n'
    '<th>2 runtime</th>\n'
    '<th>3 options</th>\n'
    '<th>9 containerd</th>\n'
    '<th>restart</th>\n'
    '<th>실패 내용/failure</th>\n'
    '</tr></thead><tbody>\n'
    '<tr><td class="node-a">node-a</td><td class="OK">OK</td><td class="apply">apply</td><td class="20260102T030405Z">20260102T030405Z</td><td class="changed">changed</td><td class="PASS">PASS</td><td class="PASS">PASS</td><td class="skip">skip</td><td class="skip">skip</td><td></td></tr>\n'
    '<tr><td class="node-c">node-c</td><td class="FAILED">FAILED</td><td class="apply">apply</td><td class="20260102T030405Z">20260102T030405Z</td><td class="-">-</td><td class="-">-</td><td class="-">-</td><td class="-">-</td><td class="-">-</td><td>노트북이 멈췄습니다 — DeadKernelError: Kernel died<br>the notebook stopped — DeadKernelError: Kernel died</td></tr>\n'
    '<tr><td class="node-d">node-d</td><td class="FAILED">FAILED</td><td class=""></td><td class="20260102T030405Z">20260102T030405Z</td><td class="-">-</td><td class="-">-</td><td class="-">-</td><td class="-">-</td><td class="-">-</td><td>실행이 끝나지 않았습니다 (읽을 수 있는 manifest.json 이 없음: 중단되었거나 강제 종료, 또는 아직 실행 중): {archive}/node-d/20260102T030405Z<br>the run did not finish (no readable manifest.json: interrupted, killed, or still running): {archive}/node-d/20260102T030405Z</td></tr>\n'
    '<tr><td class="node-e">node-e</td><td class="FAILED">FAILED</td><td class="apply">apply</td><td class="20260102T030405Z">20260102T030405Z</td><td class="PASS">PASS</td><td class="-">-</td><td class="-">-</td><td class="-">-</td><td class="-">-</td><td>요약 셀까지 가지 못했습니다<br>the run did not reach its summary cell</td></tr>\n'
    '<tr><td class="노드-b">노드-b</td><td class="FAILED">FAILED</td><td class="check">check</td><td class="20260102T030405Z">20260102T030405Z</td><td class="PASS">PASS</td><td class="FAIL">FAIL</td><td class="FAIL">FAIL</td><td class="-">-</td><td class="-">-</td><td>[2 runtime] 표가 &lt;b&gt;없음&lt;/b&gt;<br>[2 runtime] no table | &lt;b&gt;x&lt;/b&gt;<br>[3 options] 값이 틀림<br>[3 options] wrong value</td></tr>\n'
    '</tbody></table>\n'
    '<p>호스트 5대 중 4대 실패 / 4 of 5 hosts failed</p>\n'
    '</body></html>\n'
)
STUDENTS = (
    '학생/student  결과/result  모드/mode  실행/run             1 prepare\n'
    '------------  -----------  ---------  -------------------  ---------\n'
    'kim           OK           check      2026-01-02T03:04:05  PASS\n'
    'lee           OK           check      2026-01-02T03:04:05  PASS\n'
    '학생 2명 모두 통과 / all 2 students passed\n'
)


def test_the_text_markdown_and_html_of_an_archive(tmp_path):
    base = archive(tmp_path / "archive")
    table = summary.summarize(base)
    for fmt, expected in (("text", TEXT), ("markdown", MARKDOWN), ("html", HTML)):
        assert summary.render(table, fmt) + "\n" == expected.replace("{archive}", str(base)), fmt


def test_a_class_that_passed_and_a_fleet_that_passed(tmp_path):
    assert summary.render(summary.summarize(students_archive(tmp_path / "class")), "text") + "\n" == STUDENTS
    fleet = tmp_path / "fleet"
    _write(fleet, "node-a", "20260102T030405Z", _manifest("node-a", True, [_step(1, "prepare", "passed")]))
    table = summary.summarize(fleet)
    assert summary.render(table, "text").splitlines()[-1] == "호스트 1대 통과 / the host passed"  # a count of one reads naturally (ko_one/en_one)
    assert summary.summarize(fleet, students=True).students is True  # a view asked for students says students
