"""Another writer's edit is never lost (docs/GUARANTEES.md, 1): an edit made between the plan's compare and the
rename stops the write, stays in place, and leaves no backup of a write that did not happen.

The window is made wide on purpose by safe_write's test hook (RUNBOOK_TEST_PAUSE_BEFORE_RENAME): the write of the
named file waits, after its temporary file is synced and its backup made, until the test has edited the file as
another tool would (a rename, as editors and nvidia-ctk do, or a write in place, as `echo >>` does)."""
from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from kernel_ports import run_papermill
from reliability_helpers import BASE, CONFIG, NOTEBOOK, PAPERMILL, make_root, run_apply
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run
from runbook_lib.fs.safe_write import PAUSE_ENV

EDIT = b"\n# another tool's line\n"


def _edit_by_rename(path: Path) -> None:
    tmp = path.with_name(path.name + ".other-tool")
    tmp.write_bytes(path.read_bytes() + EDIT)
    tmp.replace(path)


def _edit_in_place(path: Path) -> None:
    with open(path, "ab") as fh:
        fh.write(EDIT)


def _editor(signal: Path, edit) -> threading.Thread:
    """Waits until the paused write says which file it holds, edits that file, then lets the write go on."""
    def work():
        deadline = time.monotonic() + 120
        while not (signal / "paused").exists():
            if time.monotonic() > deadline:
                return
            time.sleep(0.01)
        edit(Path((signal / "paused").read_text()))
        (signal / "go").write_text("")
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return thread


def _paused_on(tmp_path: Path, name: str, monkeypatch) -> Path:
    signal = tmp_path / "signal"
    signal.mkdir()
    (signal / "files").write_text(name + "\n")
    monkeypatch.setenv(PAUSE_ENV, str(signal))
    return signal


@pytest.mark.parametrize("edit", [_edit_by_rename, _edit_in_place], ids=["rename", "in-place"])
def test_an_edit_made_between_the_compare_and_the_rename_stops_the_run_and_stays(tmp_path, monkeypatch, edit):
    root = make_root(tmp_path, BASE)
    signal = _paused_on(tmp_path, "config.toml", monkeypatch)
    editor = _editor(signal, edit)
    results = run_apply(root)
    editor.join(30)
    failed = [r for r in results if r.status == "failed"]
    assert [(r.id, r.problems[0].code) for r in failed] == [("runtime", "write.failed.file_changed_while_writing")]
    assert "nvidia-container-runtime" not in (root / CONFIG).read_text()
    assert (root / CONFIG).read_bytes() == BASE + EDIT  # the other tool's edit, whole
    assert sorted(p.name for p in (root / CONFIG).parent.iterdir()) == ["config.toml"]  # no backup, no temp file
    assert failed[0].message.ko != failed[0].message.en and "config.toml" in failed[0].message.ko


def test_after_a_stopped_write_remove_keeps_the_other_writers_edit(tmp_path, monkeypatch):
    """The run's record was written before its first write; the file it never wrote holds another tool's bytes,
    so remove takes nothing from it, and the edit stays."""
    root = make_root(tmp_path, BASE)
    signal = _paused_on(tmp_path, "config.toml", monkeypatch)
    editor = _editor(signal, _edit_by_rename)
    run_apply(root)
    editor.join(30)
    monkeypatch.delenv(PAUSE_ENV)
    rb = Run(validate(root=str(root), mode="remove"))
    rb.start()
    try:
        rb.preflight()
        for step in rb.steps:
            rb.run(step)
    finally:
        rb.finish()
    assert (root / CONFIG).read_bytes() == BASE + EDIT


def test_the_edit_is_kept_through_plain_papermill_and_the_run_exits_non_zero(tmp_path):
    """The user's own command: papermill stops with the bilingual words, and the edit is in the file."""
    root = make_root(tmp_path, BASE)
    signal = tmp_path / "signal"
    signal.mkdir()
    (signal / "files").write_text("config.toml\n")
    editor = _editor(signal, _edit_by_rename)
    out = tmp_path / "out.ipynb"
    env = {**__import__("os").environ, PAUSE_ENV: str(signal)}
    done = run_papermill([str(PAPERMILL), str(NOTEBOOK), str(out), "-p", "root", str(root)], env=env,
                         capture_output=True, text=True, timeout=600)
    editor.join(30)
    assert done.returncode != 0
    assert (root / CONFIG).read_bytes() == BASE + EDIT
    text = out.read_text()
    assert "another program edited the file while the runbook was writing it" in text
    assert "다른 프로그램이 파일을 고쳤습니다" in text
