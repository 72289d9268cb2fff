"""Durability observed, not assumed (issue 25: with the fsync of the folder after the atomic rename taken out,
the whole suite passed: a SIGKILL keeps the page cache, so no crash test can see it).

A spy around os.fsync, os.replace, os.rename, os.link and os.unlink records each call with the path of the file
or folder it touched (an fd's path from /proc/self/fd). For every way the runbook writes (every step of an apply
run, a second run's backups, remove, a failed run's withdrawn report, lab-init, the grading folder, the archive
of `runbook run`), every file that changed under the folders it writes to was made durable:

- replaced: the temporary file fsynced, renamed over the file, then the folder fsynced; or, for many files at
  once (the grading folder), each renamed over its file, then the file system holding them flushed (syncfs);
- a backup: the temporary copy fsynced, hard-linked under the backup's name, then the folder fsynced;
- removed: unlinked, then the folder fsynced;
- run.ipynb, which papermill writes in place during the run (a killed run's notebook is its evidence): the file
  fsynced once the run is done, then its folder.

The root's lock file is the one file left out: it holds no state (the lock is the open file, not its bytes).
test_no_writer_bypasses_safe_write keeps every other module from opening a file for writing itself."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path


from grading_helpers import BROKEN, CONFIG, REPO, TOOLKIT, run_all
from runbook_lib.fs.safe_write import BACKUP_INFIX

LOCK = "run/lock/nvidia-runtime-runbook.lock"


class Spy:
    def __init__(self, monkeypatch):
        self.events: list[tuple] = []
        real = {name: getattr(os, name) for name in ("fsync", "replace", "rename", "link", "unlink")}

        def fsync(fd):
            self.events.append(("fsync", os.path.realpath(os.readlink(f"/proc/self/fd/{fd}"))))
            return real["fsync"](fd)

        def two(name):
            def call(src, dst, *a, **kw):
                out = real[name](src, dst, *a, **kw)
                self.events.append((name, os.path.realpath(src), os.path.realpath(dst)))
                return out
            return call

        def unlink(path, *a, **kw):
            out = real["unlink"](path, *a, **kw)
            self.events.append(("unlink", os.path.realpath(path)))
            return out

        from runbook_lib.fs import safe_write
        real_syncfs = safe_write._syncfs

        def syncfs(fd):  # the file system holding fd flushed whole (a class's grading folder: write_files)
            done = real_syncfs(fd)
            if done:
                self.events.append(("syncfs", os.fstat(fd).st_dev))
            return done

        monkeypatch.setattr(safe_write, "_syncfs", syncfs)
        monkeypatch.setattr(os, "fsync", fsync)
        for name in ("replace", "rename", "link"):
            monkeypatch.setattr(os, name, two(name))
        monkeypatch.setattr(os, "unlink", unlink)

    def index(self, event: tuple, after: int = -1) -> int:
        """The first position of `event` after `after`, or -1."""
        return next((i for i, e in enumerate(self.events) if i > after and e == event), -1)

    def last(self, match) -> int:
        return max((i for i, e in enumerate(self.events) if match(e)), default=-1)


def files(folder: Path) -> dict[str, tuple[int, str]]:
    return {str(p.relative_to(folder)): (p.stat().st_ino, hashlib.sha256(p.read_bytes()).hexdigest())
            for p in folder.rglob("*") if p.is_file() and not p.is_symlink()}


def why_not_durable(spy: Spy, path: Path, removed: bool = False) -> str | None:
    path, folder = os.path.realpath(path), os.path.realpath(os.path.dirname(path))
    if removed:
        at = spy.last(lambda e: e == ("unlink", path))
        if at < 0:
            return "removed without os.unlink"
        return None if spy.index(("fsync", folder), at) > at else "unlinked, the folder never fsynced after"
    if os.path.basename(path) == "run.ipynb":  # papermill's, written in place
        at = spy.last(lambda e: e == ("fsync", path))
        if at < 0:
            return "papermill's notebook never fsynced"
        return None if spy.index(("fsync", folder), at) > at else "the notebook fsynced, its folder not after"
    kind = "link" if BACKUP_INFIX in os.path.basename(path) else "replace"
    at = spy.last(lambda e: e[0] in ("replace", "rename", "link") and e[2] == path)
    if at < 0:
        return "written in place: no rename, no link"
    op, tmp = spy.events[at][0], spy.events[at][1]
    if (op == "link") != (kind == "link"):  # a backup never replaces anything; a file is never a second link
        return f"{'a backup' if kind == 'link' else 'the file'} made by os.{op}"
    if spy.index(("syncfs", os.stat(folder).st_dev), at) > at:
        return None  # renamed, then its whole file system flushed (the file's bytes and the folder's entry)
    if ("fsync", tmp) not in spy.events[:at]:
        return f"renamed from {tmp} that was never fsynced before"
    if spy.index(("fsync", folder), at) < 0:
        return "renamed; the folder was never fsynced after the rename"
    return None


def assert_durable(spy: Spy, folder: Path, before: dict, exempt: set[str] = frozenset()):
    after = files(folder)
    changed = sorted(rel for rel, entry in after.items() if before.get(rel) != entry and rel not in exempt)
    removed = sorted(set(before) - set(after))
    problems = {rel: why_not_durable(spy, folder / rel) for rel in changed}
    problems |= {rel: why_not_durable(spy, folder / rel, removed=True) for rel in removed}
    assert {rel: why for rel, why in problems.items() if why} == {}
    return changed, removed


def test_the_spy_sees_a_write_that_is_not_durable(tmp_path, monkeypatch):
    """The rule above fails each kind of careless write: in place, renamed unsynced, no folder fsync."""
    spy = Spy(monkeypatch)
    (tmp_path / "in-place").write_text("x")
    (tmp_path / "t1").write_text("x")
    os.replace(tmp_path / "t1", tmp_path / "renamed-unsynced")
    fd = os.open(tmp_path / "t2", os.O_WRONLY | os.O_CREAT)
    os.write(fd, b"x")
    os.fsync(fd)
    os.close(fd)
    os.replace(tmp_path / "t2", tmp_path / "no-folder-fsync")
    assert why_not_durable(spy, tmp_path / "in-place") == "written in place: no rename, no link"
    assert why_not_durable(spy, tmp_path / "renamed-unsynced").startswith("renamed from")
    assert why_not_durable(spy, tmp_path / "no-folder-fsync") == "renamed; the folder was never fsynced after the rename"
    from runbook_lib.fs.safe_write import write_file
    write_file(tmp_path / "durable", "x")
    assert why_not_durable(spy, tmp_path / "durable") is None


def fresh_root(tmp_path: Path, config: bytes | None = None) -> Path:
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    if config is not None:
        (root / CONFIG).write_bytes(config)
    return root


def test_every_step_of_an_apply_run_writes_durably(tmp_path, monkeypatch):
    root = fresh_root(tmp_path)  # no config: step 1 puts the base in place, step 2 edits it (no backup: the base is the runbook's own)
    before = files(root)
    spy = Spy(monkeypatch)
    results = run_all(root)
    assert not [r for r in results.values() if r.failed]
    changed, _ = assert_durable(spy, root, before, exempt={LOCK})
    assert {CONFIG, f"{TOOLKIT}/report.txt", f"{TOOLKIT}/default.txt", "etc/cdi/nvidia.yaml"} <= set(changed)
    assert [rel for rel in changed if BACKUP_INFIX in rel] == []


def test_remove_and_a_withdrawn_report_write_durably(tmp_path, monkeypatch):
    root = fresh_root(tmp_path)  # the run adds the runtime, so remove has something of its own to take out
    run_all(root)
    before = files(root)
    spy = Spy(monkeypatch)
    results = run_all(root, mode="remove")
    assert not [r for r in results.values() if r.failed]
    changed, removed = assert_durable(spy, root, before, exempt={LOCK})
    assert {CONFIG, f"{TOOLKIT}/report.txt"} <= set(removed)  # the run made both: remove takes both out

    run_all(root)  # a finished root again, then a run that fails after the report was written
    (root / CONFIG).write_bytes((BROKEN / "systemdcgroup-string.toml").read_bytes())
    before = files(root)
    from runbook_lib.notebook import Runbook
    from runbook_lib.engine.params import validate
    rb = Runbook(validate(root=str(root))).start()
    try:
        withdrawn = rb.withdraw_report()
    finally:
        rb.finish()
    assert withdrawn
    _, removed = assert_durable(spy, root, before, exempt={LOCK})
    assert removed == [f"{TOOLKIT}/report.txt"]


def test_lab_init_writes_durably(tmp_path, monkeypatch):
    from runbook_lib.lab.init_root import add_mistakes, finished_lab
    root = tmp_path / "lab"
    spy = Spy(monkeypatch)
    finished_lab(str(root))
    add_mistakes(str(root), "binaryname-relative")
    changed, _ = assert_durable(spy, root, {}, exempt={LOCK})
    assert CONFIG in changed and f"{TOOLKIT}/report.txt" in changed


def test_the_grading_folder_is_written_durably(tmp_path, monkeypatch):
    from runbook_lib.grading import grade
    out = tmp_path / "grades"
    out.mkdir()
    record = {"step": 1, "id": "prepare", "title": {"ko": "1단계", "en": "step 1"}, "status": "failed",
              "message": {"ko": "틀림", "en": "wrong"}, "problems": []}
    result = grade.ClassGrade(out, [grade.Student("kim", "/srv/kim", False, [record], None, out / "kim"),
                                    grade.Student("lee", "/srv/lee", True, [dict(record, status="passed")], None,
                                                  out / "lee")])
    spy = Spy(monkeypatch)
    grade.write_outputs(result)
    grade.write_outputs(result)  # a second grading over the first: replaced, never rewritten in place
    changed, _ = assert_durable(spy, out, {})
    assert sorted(changed) == sorted(["grades.json", "grades.csv", "junit.xml", "index.html"] +
                                     [f"{s}/{n}" for s in ("kim", "lee") for n in ("feedback.html", "results.json")])


def test_the_archive_of_a_run_is_written_durably(tmp_path, monkeypatch):
    from runbook_lib.evidence import archive
    standin = REPO / "tests/fleet/notebooks/standin.ipynb"
    root = fresh_root(tmp_path)
    spy = Spy(monkeypatch)
    run = archive.execute(standin, {"root": str(root)}, tmp_path / "runs", "node-1", "0")
    changed, _ = assert_durable(spy, tmp_path / "runs", {})
    assert sorted(Path(rel).name for rel in changed) == ["manifest.json", "run.html", "run.ipynb"]
    assert spy.index(("fsync", os.path.realpath(run.run_dir.parent))) >= 0  # the run's new folder too


WRITES = re.compile(r"""open\([^)]*["'][wax]b?\+?["']|\.write_(text|bytes)\(|os\.(replace|rename)\(|shutil\.(copy|move)""")
# the writers that are not the runbook's files: the generators of the committed notebooks (tools/, a developer's)
# and the scratch files of the throw-away containerd of the pod check (its config, log, stand-in runtime and OCI
# image, in a temporary folder of its own that goes with it), and the copy of the planned config that containerd
# reads before any write (containerd/planned_copy.py, a temporary folder that goes with it), and the probe config
# that asks the node's containerd which runtime keys it keeps (containerd/releases.py, a temporary folder too), and
# the catalog's JSON cache that make writes into the package (findings/catalog.py: write_cache, never under a root),
# and the fstab of the view of a root that containerd is chrooted in (containerd/verify.py, a temporary folder too)
NOT_STATE = {"runbook_lib/containerd/verify.py", "runbook_lib/containerd/releases.py", "runbook_lib/findings/catalog.py", "runbook_lib/containerd/throwaway.py", "runbook_lib/containerd/planned_copy.py",
             "runbook_lib/containerd/oci_layout.py", "runbook_lib/containerd/smoke/sandbox.py"}


def test_no_writer_bypasses_safe_write():
    found = {}
    for path in sorted((REPO / "runbook_lib").rglob("*.py")):
        rel = str(path.relative_to(REPO))
        if rel == "runbook_lib/fs/safe_write.py" or rel in NOT_STATE:
            continue
        hits = [n for n, line in enumerate(path.read_text().splitlines(), 1) if WRITES.search(line)]
        if hits:
            found[rel] = hits
    assert found == {}, "write through runbook_lib/fs/safe_write.py (commit, write_file): " + str(found)


def test_write_file_writes_utf8_with_the_mode_it_is_given(tmp_path):
    from runbook_lib.fs.safe_write import write_file
    write_file(tmp_path / "page.html", "학생 / student")
    write_file(tmp_path / "grades.json", b"{}\n", mode=0o600)
    assert (tmp_path / "page.html").read_bytes() == "학생 / student".encode("utf-8")
    assert [oct((tmp_path / n).stat().st_mode & 0o777) for n in ("page.html", "grades.json")] == ["0o644", "0o600"]
    write_file(tmp_path / "page.html", "again")  # over an existing file: replaced, same mode
    assert (tmp_path / "page.html").read_text() == "again" and (tmp_path / "page.html").stat().st_mode & 0o777 == 0o644
