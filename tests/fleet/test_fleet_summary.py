"""`runbook summary`: the latest run per label, one column per step, the failing message, the exit code."""

from __future__ import annotations

import json
from pathlib import Path

from fleet_helpers import STANDIN, runbook


def step(n, sid, status, en="ok", ko="정상"):
    return {"step": n, "id": sid, "title": {"ko": sid, "en": sid}, "status": status,
            "message": {"ko": ko, "en": en}, "backup": None}


def write_run(archive: Path, label: str, run: str, started: str, steps: list[dict], error=None) -> None:
    failed = [s for s in steps if s["status"] == "failed"]
    ok = not failed and error is None
    man = {"label": label, "ok": ok, "mode": "apply", "started_at": started, "steps": steps,
           "failed_step": failed[0] if failed else None, "error": error}
    d = archive / label / run
    d.mkdir(parents=True)
    (d / "manifest.json").write_text(json.dumps(man, ensure_ascii=False))


def test_latest_run_per_label_decides_and_failures_show_their_message(tmp_path):
    a = tmp_path / "archive"
    good = [step("0", "validate", "passed"), step(1, "prepare", "unchanged"), step(2, "runtime", "changed")]
    # node-a failed first, then was fixed: only the latest run counts
    write_run(a, "node-a", "20250101T000000Z", "2025-01-01T00:00:00+00:00",
              [step("0", "validate", "passed"), step(1, "prepare", "failed", "old failure", "옛 실패")])
    write_run(a, "node-a", "20250102T000000Z", "2025-01-02T00:00:00+00:00", good)
    write_run(a, "node-b", "20250102T000000Z", "2025-01-02T00:00:00+00:00",
              [step("0", "validate", "passed"), step(1, "prepare", "passed"),
               step(2, "runtime", "failed", "config.toml is not valid TOML", "config.toml 이 올바른 TOML 이 아닙니다")])
    proc = runbook("summary", a)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].endswith("0 validate  1 prepare  2 runtime")  # columns in step order
    row_a = next(line for line in lines if line.startswith("node-a"))
    row_b = next(line for line in lines if line.startswith("node-b "))
    assert row_a.split()[1:2] == ["OK"] and row_a.split()[-3:] == ["PASS", "PASS", "changed"]
    assert row_b.split()[1:2] == ["FAILED"] and row_b.split()[-3:] == ["PASS", "PASS", "FAIL"]
    assert "old failure" not in proc.stdout
    assert "[2 runtime] config.toml is not valid TOML" in proc.stdout
    assert "config.toml 이 올바른 TOML 이 아닙니다" in proc.stdout
    assert "1 of 2 hosts failed" in proc.stdout


def test_all_passing_exits_0_and_a_run_that_stopped_without_a_step_shows_its_error(tmp_path):
    a = tmp_path / "archive"
    write_run(a, "ok", "r1", "2025-01-01T00:00:00+00:00", [step(1, "prepare", "passed")])
    assert runbook("summary", a).returncode == 0
    write_run(a, "dead", "r1", "2025-01-01T00:00:00+00:00", [step(1, "prepare", "passed")],
              error={"ename": "DeadKernelError", "evalue": "Kernel died"})
    proc = runbook("summary", a)
    assert proc.returncode == 1 and "DeadKernelError: Kernel died" in proc.stdout


def test_markdown_and_html_formats_escape_what_they_show(tmp_path):
    a = tmp_path / "archive"
    write_run(a, "n<1>", "r1", "2025-01-01T00:00:00+00:00",
              [step(1, "prepare", "failed", "a|b <script>x</script>", "가|나")])
    md = runbook("summary", a, "--format", "markdown")
    assert md.returncode == 1
    row = next(line for line in md.stdout.splitlines() if line.startswith("| n&lt;1&gt;"))
    assert "a\\|b" in row and "가\\|나" in row and row.count(" | ") == 5  # six columns
    assert "<script>" not in md.stdout and "&lt;script&gt;" in row
    page = runbook("summary", a, "--format", "html")
    assert page.returncode == 1
    assert "<script>x" not in page.stdout and "&lt;script&gt;x" in page.stdout
    assert '<td class="FAIL">FAIL</td>' in page.stdout and page.stdout.startswith("<!DOCTYPE html>")


def test_a_manifest_that_is_json_but_not_a_manifest_is_a_failed_run_with_a_note_not_a_traceback(tmp_path):
    """A manifest truncated or edited by hand: `[]`, `null`, steps that are not objects; was AttributeError."""
    a = tmp_path / "archive"
    write_run(a, "good", "r1", "2025-01-01T00:00:00+00:00", [step(1, "prepare", "passed")])
    for label, text in [("list", "[]"), ("null", "null"), ("steps", '{"steps": [3]}'),
                        ("message", '{"steps": [{"id": "prepare", "status": "failed", "message": "boom"}]}'),
                        ("started", '{"started_at": 5, "steps": []}'), ("cut", '{"label": "cut", "ok": tr')]:
        (a / label / "r1").mkdir(parents=True)
        (a / label / "r1" / "manifest.json").write_text(text)
    proc = runbook("summary", a)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    rows = {line.split()[0]: line.split()[1] for line in proc.stdout.splitlines()[2:-1]
            if line.split()[1:2] in (["OK"], ["FAILED"])}
    assert rows.pop("good") == "OK", proc.stdout  # and a run with no readable manifest is a failed run
    assert rows == dict.fromkeys(["cut", "list", "message", "null", "started", "steps"], "FAILED"), proc.stdout
    notes = proc.stderr.splitlines()
    assert len(notes) == 6 and all("skipping unreadable manifest" in n and "건너뜁니다" in n for n in notes), notes
    assert any("steps[0].message" in n and "필요: 객체" in n and "is not an object" in n for n in notes), notes


def test_empty_or_missing_archive_is_refused(tmp_path):
    assert runbook("summary", tmp_path / "nope").returncode == 2
    proc = runbook("summary", tmp_path)
    assert proc.returncode == 2 and "manifest.json" in proc.stderr


def test_summary_of_real_runs(lab_root, tmp_path):
    a = tmp_path / "archive"
    base = ["run", "--notebook", STANDIN, "--root", lab_root, "--archive", a]
    assert runbook(*base, "--label", "good").returncode == 0
    assert runbook(*base, "--label", "broken", "-p", "fail_step", "8").returncode == 1
    proc = runbook("summary", a)
    assert proc.returncode == 1
    broken = next(line for line in proc.stdout.splitlines() if line.startswith("broken "))
    assert broken.split()[-1] == "FAIL" and "[8 report] report broke on purpose" in proc.stdout


def write_manifest(archive: Path, folder: str, label: str, root: str, host: str, steps: list[dict],
                   kind: str = "run", started: str = "2025-01-01T00:00:00+00:00", node: str | None = None) -> None:
    failed = [s for s in steps if s["status"] == "failed"]
    man = {"kind": kind, "label": label, "ok": not failed, "mode": "check", "started_at": started, "root": root,
           "host": {"hostname": host, "node_name": node}, "steps": steps,
           "failed_step": failed[0] if failed else None, "error": None}
    d = archive / folder
    d.mkdir(parents=True)
    (d / "manifest.json").write_text(json.dumps(man, ensure_ascii=False))


def test_two_students_under_one_label_are_two_rows_told_apart_by_the_label_rule(tmp_path):
    """Graded one at a time, /srv/a/kim and /srv/b/kim both archive as kim: still two rows, a-kim and b-kim
    (the labels `runbook run` gives the two roots at once), and two hosts sharing a label stay two rows too."""
    a = tmp_path / "archive"
    write_manifest(a, "kim/r1", "kim", "/srv/a/kim", "h", [step(1, "prepare", "passed")])
    write_manifest(a, "kim/r2", "kim", "/srv/b/kim", "h", [step(1, "prepare", "failed", "broken", "고장")],
                   started="2025-01-02T00:00:00+00:00")
    write_manifest(a, "node/r1", "node", "/", "gpu1", [step(1, "prepare", "passed")])
    write_manifest(a, "node/r2", "node", "/", "gpu2", [step(1, "prepare", "passed")])
    proc = runbook("summary", a)
    rows = [line.split()[0] for line in proc.stdout.splitlines()[2:] if line.split() and
            line.split()[1:2] in (["OK"], ["FAILED"], ["(gpu1)"], ["(gpu2)"])]
    assert rows == ["a-kim", "b-kim", "node", "node"], proc.stdout
    assert "node (gpu1)" in proc.stdout and "node (gpu2)" in proc.stdout
    assert "b-kim: [1 prepare] 고장" in proc.stdout and "1 of 4 hosts failed" in proc.stdout


def test_every_failed_step_of_a_row_is_shown(tmp_path):
    a = tmp_path / "archive"
    write_run(a, "s1", "r1", "2025-01-01T00:00:00+00:00",
              [step(2, "runtime", "failed", "table missing", "테이블 없음"),
               step(3, "options", "passed"), step(7, "runtimeclass", "failed", "handler wrong", "handler 틀림")])
    out = runbook("summary", a).stdout
    assert "s1: [2 runtime] 테이블 없음" in out and "    [2 runtime] table missing" in out
    assert "    [7 runtimeclass] handler 틀림" in out and "    [7 runtimeclass] handler wrong" in out
    md = runbook("summary", a, "--format", "markdown").stdout
    assert "table missing" in md and "handler wrong" in md


def test_grading_views_speak_of_students_and_korean_headers_keep_whole(tmp_path):
    a = tmp_path / "grades"
    write_manifest(a, "김민준", "김민준", "/srv/김민준", "h", [step(1, "prepare", "passed")], kind="grade")
    write_manifest(a, "lee", "lee", "/srv/lee", "h", [step(1, "prepare", "failed", "no config", "설정 없음")],
                   kind="grade")
    proc = runbook("summary", a)
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("학생/student") and "1 of 2 students failed" in proc.stdout
    from runbook_lib.findings.messages import display_width
    # columns line up by display width: "result" starts at the same column in the header and in the Korean row
    row = next(line for line in lines if line.startswith("김민준"))
    assert display_width(row[:row.index("OK")]) == display_width(lines[0][:lines[0].index("결과")])
    page = runbook("summary", a, "--format", "html").stdout
    assert "word-break:keep-all" in page and "<th>학생/student</th>" in page
    hosts = tmp_path / "archive"
    write_run(hosts, "n1", "r1", "2025-01-01T00:00:00+00:00", [step(1, "prepare", "passed")])
    assert "the student passed" in runbook("summary", hosts, "--students").stdout
    assert "the host passed" in runbook("summary", hosts).stdout


def test_runs_of_one_node_from_two_pods_are_one_row_the_latest(tmp_path):
    """In Kubernetes the host name is the pod's: the DaemonSet's pod before and after a rollout, and the check
    Job, all archive under the node's label on the node. They were one row per pod (`gpu1 (pod-a)`), the stale
    one still OK; the node name (NODE_NAME, recorded by the manifests' downward API) makes them one host."""
    a = tmp_path / "archive"
    write_manifest(a, "gpu1/r1", "gpu1", "/host", "nvidia-runtime-runbook-x7k2p", [step(1, "prepare", "passed")],
                   node="gpu1")
    write_manifest(a, "gpu1/r2", "gpu1", "/host", "nvidia-runtime-runbook-check-4tq9z",
                   [step(1, "prepare", "failed", "broken", "고장")], started="2025-01-02T00:00:00+00:00", node="gpu1")
    proc = runbook("summary", a)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    rows = [line for line in proc.stdout.splitlines()[2:] if line.startswith("gpu1")]
    assert len(rows) == 2 and rows[0].split()[:2] == ["gpu1", "FAILED"], proc.stdout  # the row, its failure line
    assert "the host failed" in proc.stdout


def test_a_run_killed_before_its_manifest_is_the_latest_run_and_a_failed_one(tmp_path):
    """The pod OOM-killed, the node rebooted, Ctrl-C: the run folder has run.ipynb (papermill writes it at the
    start) and no manifest.json, or one cut off mid-write. It was skipped, so the run before it (OK) stood for
    the host."""
    a = tmp_path / "archive"
    for host in ("gpu1", "gpu2"):
        write_manifest(a, f"{host}/20250101T000000Z", host, "/host", host, [step(1, "prepare", "passed")])
    killed = a / "gpu1" / "20250102T000000Z"
    killed.mkdir()
    (killed / "run.ipynb").write_text(json.dumps({"cells": [], "metadata": {"papermill": {
        "parameters": {"root": "/host", "mode": "apply"}}}, "nbformat": 4, "nbformat_minor": 5}))
    cut = a / "gpu2" / "20250102T000000Z"
    cut.mkdir()
    (cut / "manifest.json").write_text('{"label": "gpu2", "ok": tr')
    proc = runbook("summary", a)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    rows = {line.split()[0]: line.split() for line in proc.stdout.splitlines()[2:-1]
            if line.split()[1:2] == ["FAILED"]}
    assert rows["gpu1"][2:4] == ["apply", "20250102T000000Z"] and rows["gpu2"][1:2] == ["FAILED"], proc.stdout
    assert "gpu1: 실행이 끝나지 않았습니다" in proc.stdout and "the run did not finish" in proc.stdout
    assert str(killed) in proc.stdout and str(cut) in proc.stdout
    assert "2 of 2 hosts failed" in proc.stdout and "skipping unreadable manifest" in proc.stderr


def test_a_grading_folder_is_summarized_from_its_grades_json_and_a_broken_one_is_refused_with_its_fix(tmp_path,
                                                                                                    capsys):
    """`runbook grade --out DIR` (without --notebooks) leaves no run manifests: `runbook summary DIR` reads
    DIR/grades.json, a row a student. A grades.json it cannot read is refused with where and the fix."""
    from runbook_lib.cli.main import main

    kim, lee, out = tmp_path / "kim", tmp_path / "lee", tmp_path / "grades"
    assert main(["lab-init", "--finished", str(kim)]) == 0
    assert main(["lab-init", "--mistake", "handler-mismatch", str(lee)]) == 0
    assert main(["grade", "--out", str(out), str(kim), str(lee)]) == 1
    capsys.readouterr()
    assert main(["summary", str(out)]) == 1
    lines = capsys.readouterr().out.splitlines()
    head = lines[0].split()
    assert head[0] == "학생/student" and head[4:] == ["1", "prepare", "2", "runtime", "3", "options", "4", "default",
                                                     "5", "parse", "6", "cdi", "7", "runtimeclass", "8", "report"]
    assert lines[2].split() == ["kim", "OK", "check"] + ["PASS"] * 8
    assert lines[3].split() == ["lee", "FAILED", "check"] + ["PASS"] * 6 + ["FAIL", "PASS"]
    assert lines[4].startswith("lee: [7 runtimeclass] handler 값(nvidai)이 containerd 설정의 런타임 목록")
    assert lines[5].strip().startswith("[7 runtimeclass] handler nvidai is not one of containerd's runtimes")
    assert lines[-1] == "학생 2명 중 1명 실패 / 1 of 2 students failed"

    (out / "grades.json").write_text('{"schema": ', encoding="utf-8")
    assert main(["summary", str(out)]) == 2
    said = capsys.readouterr().err
    assert f"{out / 'grades.json'} (line 1, column 12: Expecting value)" in said
    assert "runbook grade --out 으로 반을 다시 채점" in said and "grade the class again with runbook grade --out" in said
    (out / "grades.json").write_text('{"schema": "something/else"}', encoding="utf-8")
    assert main(["summary", str(out)]) == 2
    said = capsys.readouterr().err
    assert 'expected "schema": "nvidia-runtime-runbook/grades/1"' in said and "필요:" in said
    assert (lee / "root" / "toolkit" / "runtimeclass.yaml").is_file()  # the students' roots are only read
