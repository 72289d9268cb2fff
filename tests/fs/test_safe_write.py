"""plan -> backup -> atomic write: unchanged writes nothing, backups never collide, the mode is kept."""

from __future__ import annotations

import calendar
import errno
import os
import shutil
import stat
import subprocess

import pytest

from reliability_helpers import realenv  # skips, or fails with RUNBOOK_REQUIRE_REAL=1
from runbook_lib.findings.errors import WriteError
from runbook_lib.fs import safe_write
from runbook_lib.fs.bounded_read import FileTooLarge
from runbook_lib.fs.safe_write import (
    BACKUP_INFIX,
    commit,
    plan_write,
    sweep_stale_temps,
    TMP_PREFIX,
    backup_name,
    ensure_dir,
    retire,
)
from runbook_lib.fs.target import Target


def test_unchanged_plan_writes_nothing(tmp_path):
    f = tmp_path / "a.txt"
    f.write_bytes(b"same\n")
    before = f.stat()
    done = commit(plan_write(Target(tmp_path), "/a.txt", b"same\n"))
    assert not done.written and done.backup is None
    assert f.stat().st_mtime_ns == before.st_mtime_ns and f.stat().st_ino == before.st_ino


def test_change_is_atomic_rename_with_backup_of_old_bytes(tmp_path):
    f = tmp_path / "a.txt"
    f.write_bytes(b"old\n")
    os.chmod(f, 0o600)
    inode = f.stat().st_ino
    done = commit(plan_write(Target(tmp_path), "/a.txt", b"new\n"))
    assert f.read_bytes() == b"new\n"
    assert f.stat().st_ino != inode  # replaced by rename, not rewritten in place
    assert stat.S_IMODE(f.stat().st_mode) == 0o600
    assert done.backup.read_bytes() == b"old\n" and BACKUP_INFIX in done.backup.name
    assert stat.S_IMODE(done.backup.stat().st_mode) == 0o600


def test_backups_never_collide(tmp_path):
    f = tmp_path / "a.txt"
    f.write_bytes(b"v0")
    t = Target(tmp_path)
    backups = [commit(plan_write(t, "/a.txt", f"v{i}".encode())).backup for i in range(1, 5)]
    assert len(set(backups)) == 4
    assert [b.read_bytes() for b in backups] == [b"v0", b"v1", b"v2", b"v3"]


def test_new_file_gets_requested_mode_and_no_backup(tmp_path):
    done = commit(plan_write(Target(tmp_path), "/n.txt", b"x", mode=0o640))
    assert done.backup is None and stat.S_IMODE((tmp_path / "n.txt").stat().st_mode) == 0o640


def test_symlinked_file_is_written_through_and_link_kept(tmp_path):
    (tmp_path / "real.toml").write_text("a")
    (tmp_path / "link.toml").symlink_to("real.toml")
    commit(plan_write(Target(tmp_path), "/link.toml", b"b"))
    assert (tmp_path / "link.toml").is_symlink() and (tmp_path / "real.toml").read_text() == "b"


def test_sweep_removes_only_our_temp_files(tmp_path):
    (tmp_path / f"{TMP_PREFIX}config.toml.abc").write_text("partial")
    (tmp_path / "config.toml").write_text("keep")
    sweep_stale_temps(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]


def test_diff_is_unified_with_lab_paths(tmp_path):
    (tmp_path / "a.txt").write_text("x\n")
    diff = plan_write(Target(tmp_path), "/a.txt", b"x\ny\n").diff()
    assert diff.startswith("--- a/a.txt\n+++ b/a.txt\n") and "+y\n" in diff


def test_extended_attributes_survive_the_rename(tmp_path):
    import pytest
    f = tmp_path / "config.toml"
    f.write_bytes(b"old\n")
    try:
        os.setxattr(f, "user.runbook-test", b"label")
    except OSError:
        pytest.skip("this file system has no user extended attributes")
    commit(plan_write(Target(tmp_path), "/config.toml", b"new\n"))
    assert os.getxattr(f, "user.runbook-test") == b"label"


def test_a_backup_is_named_by_the_utc_time_it_was_made_whatever_the_local_zone(tmp_path, monkeypatch):
    """docs/GUARANTEES.md: `<name>.runbook-backup-<UTC time YYYYMMDDTHHMMSSZ>`. A node in Seoul (UTC+9) names its
    backups in UTC too, as the Z says, so two nodes' backups of one moment carry one stamp."""
    import calendar
    import time

    monkeypatch.setenv("TZ", "Asia/Seoul")
    time.tzset()
    try:
        f = tmp_path / "config.toml"
        f.write_bytes(b"old\n")
        before = int(time.time())
        done = commit(plan_write(Target(tmp_path), "/config.toml", b"new\n"))
        after = int(time.time())
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    prefix = f"config.toml{BACKUP_INFIX}"
    assert done.backup.name.startswith(prefix)
    stamp = done.backup.name[len(prefix):]
    made = calendar.timegm(time.strptime(stamp, "%Y%m%dT%H%M%SZ"))  # raises on any other shape
    assert before <= made <= after



def test_a_folder_the_os_cannot_make_in_an_append_only_folder_is_said_with_the_os_reason(tmp_path):
    """chattr +a lets new entries into a folder (only renaming over or removing one is refused), so a folder that
    still cannot be made there (a full file system: a tmpfs without a free inode) fails for the OS's own reason,
    which the error names, not for the attribute."""
    import errno
    import shutil
    import subprocess

    import pytest

    from runbook_lib.findings.errors import WriteError
    from runbook_lib.fs.safe_write import ensure_dir

    from reliability_helpers import realenv  # skips, or fails with RUNBOOK_REQUIRE_REAL=1

    chattr, mount = shutil.which("chattr"), shutil.which("mount")
    if chattr is None or mount is None or os.geteuid() != 0:
        realenv.missing("chattr, mount 와 root 권한이 필요합니다 / chattr, mount and root are needed")
    etc = tmp_path / "root" / "etc"
    etc.mkdir(parents=True)
    if subprocess.run([mount, "-t", "tmpfs", "-o", "size=64k,nr_inodes=1", "tmpfs", str(etc)],
                      capture_output=True).returncode != 0:
        pytest.skip("this machine lets no test mount a tmpfs")
    try:
        if subprocess.run([chattr, "+a", str(etc)], capture_output=True).returncode != 0:
            pytest.skip("this tmpfs has no chattr +a attribute")
        try:
            with pytest.raises(WriteError) as raised:
                ensure_dir(Target(tmp_path / "root"), "/etc/containerd")
        finally:
            subprocess.run([chattr, "-a", str(etc)], check=True)
    finally:
        subprocess.run(["umount", str(etc)], check=True)
    assert raised.value.code == "write.failed.could_not_create_folder"
    assert os.strerror(errno.ENOSPC) in raised.value.what.en


def test_commit_names_the_file_and_the_hash_of_the_bytes_it_holds_written_or_not(tmp_path):
    """What commit returns (remove's evidence reads it): the file on this machine and the SHA-256 of the bytes it
    now holds, for a plan that wrote and for one that had nothing to write."""
    import hashlib

    f = tmp_path / "a.txt"
    f.write_bytes(b"same\n")
    t = Target(tmp_path)
    for new in (b"same\n", b"new\n"):
        done = commit(plan_write(t, "/a.txt", new))
        assert done.host_path == f.resolve()
        assert done.sha256 == hashlib.sha256(new).hexdigest() == hashlib.sha256(f.read_bytes()).hexdigest()


def test_a_file_changed_after_its_plan_is_not_written_and_the_error_names_it(tmp_path):
    """Someone wrote the file between the plan and the commit: nothing is written, no backup is made, and the
    error names the file by the path the user knows."""
    import pytest

    from runbook_lib.findings.errors import WriteError

    f = tmp_path / "a.txt"
    f.write_bytes(b"old\n")
    plan = plan_write(Target(tmp_path), "/a.txt", b"new\n")
    f.write_bytes(b"someone else's\n")
    with pytest.raises(WriteError) as raised:
        commit(plan)
    assert raised.value.code == "write.failed.file_changed_after_plan"
    assert raised.value.path == "/a.txt"
    assert "/a.txt" in raised.value.what.en and "/a.txt" in raised.value.what.ko
    assert f.read_bytes() == b"someone else's\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_a_new_file_planned_without_a_mode_is_written_0644(tmp_path):
    """A file the runbook creates is readable by everyone and writable by its owner, as containerd's own
    config is, unless its plan asks for another mode."""
    commit(plan_write(Target(tmp_path), "/new.toml", b"x = 1\n"))
    assert stat.S_IMODE((tmp_path / "new.toml").stat().st_mode) == 0o644


def test_the_diff_of_an_edit_shows_only_what_changed(tmp_path):
    (tmp_path / "a.txt").write_text("x\nz\n")
    diff = plan_write(Target(tmp_path), "/a.txt", b"x\ny\nz\n").diff()
    assert diff == "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,3 @@\n x\n+y\n z\n"


def test_the_diff_of_a_file_that_is_not_utf8_shows_it_with_replacement_characters(tmp_path):
    """A Latin-1 comment in a node's config (bytes that are not UTF-8) is shown, never a crash of the plan."""
    (tmp_path / "a.toml").write_bytes(b"# caf\xe9\nx = 1\n")
    diff = plan_write(Target(tmp_path), "/a.toml", b"# caf\xe9\nx = 2\n").diff()
    assert diff == "--- a/a.toml\n+++ b/a.toml\n@@ -1,2 +1,2 @@\n # caf\ufffd\n-x = 1\n+x = 2\n"


def test_the_diff_of_a_file_without_a_final_newline_says_so_as_diff_does(tmp_path):
    (tmp_path / "a.txt").write_text("x\n")
    diff = plan_write(Target(tmp_path), "/a.txt", b"x\ny").diff()
    assert diff == "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n x\n+y\n\\ No newline at end of file\n"


# -------------------------------------------------------------------------------------------------------------------
# From tests/fs/test_safe_write.py (merged here):
# runbook_lib/fs/safe_write.py's rules, in process so that mutation testing sees them: a backup is made as every
# write is (a temporary file in the file's own folder, named after the file, docs/GUARANTEES.md), its name is the
# UTC moment it stands for and never collides; a folder that cannot be made is said with its cause and its fix.


def _spied(monkeypatch, name: str) -> list[tuple[str, str]]:
    """Every ``os.<name>(src, dst)`` the code makes (os.link, os.replace), as (source, destination)."""
    made: list[tuple[str, str]] = []
    real = getattr(os, name)

    def spy(src, dst, *a, **kw):
        made.append((os.fspath(src), os.fspath(dst)))
        return real(src, dst, *a, **kw)

    monkeypatch.setattr(os, name, spy)
    return made


@pytest.mark.parametrize("how", ["commit", "retire"])
def test_a_backup_is_written_as_a_temporary_file_in_the_files_own_folder_named_after_it(tmp_path, monkeypatch, how):
    """The backup's bytes go to `.runbook-tmp.<name>.<random>` beside the file (then linked to the backup's name),
    wherever the system's temporary folder is: a TMPDIR on another file system could not be linked from."""
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "elsewhere"))
    (tmp_path / "elsewhere").mkdir()
    etc = tmp_path / "root" / "etc" / "containerd"
    etc.mkdir(parents=True)
    (etc / "config.toml").write_bytes(b"old\n")
    made = _spied(monkeypatch, "link")
    target = Target(tmp_path / "root")
    if how == "commit":
        backup = commit(plan_write(target, "/etc/containerd/config.toml", b"new\n")).backup
    else:
        backup = retire(target, "/etc/containerd/config.toml")
    assert backup.read_bytes() == b"old\n" and backup.parent == etc
    assert len(made) == 1
    src, dst = made[0]
    assert dst == str(backup)
    assert os.path.dirname(src) == str(etc)
    assert os.path.basename(src).startswith(f"{TMP_PREFIX}config.toml.")
    assert list((tmp_path / "elsewhere").iterdir()) == []
    assert sorted(p.name for p in etc.iterdir() if p.name.startswith(TMP_PREFIX)) == []


def test_a_backup_name_is_the_files_name_and_the_utc_moment_it_is_given(tmp_path):
    moment = calendar.timegm((2026, 12, 2, 3, 4, 5, 0, 0, 0))
    assert backup_name(tmp_path / "config.toml", moment) == f"config.toml{BACKUP_INFIX}20261202T030405Z"
    assert backup_name(tmp_path / "a.yaml", 0) == f"a.yaml{BACKUP_INFIX}19700101T000000Z"


def test_ten_thousand_backups_of_one_moment_are_the_most_and_the_next_write_is_refused(tmp_path, monkeypatch):
    """A backup never replaces another: `<base>`, then `<base>.1` up to `<base>.9999`; with all 10,000 taken the
    write is refused, the file keeps its bytes and no further name is made."""
    f = tmp_path / "config.toml"
    f.write_bytes(b"old\n")
    base = f"config.toml{BACKUP_INFIX}20261202T030405Z"
    monkeypatch.setattr(safe_write, "backup_name", lambda host, when=None: base)
    taken = tmp_path / "taken"
    taken.write_bytes(b"an earlier backup\n")
    for n in range(10_000):
        os.link(taken, tmp_path / (base if n == 0 else f"{base}.{n}"))
    with pytest.raises(WriteError) as raised:
        commit(plan_write(Target(tmp_path), "/config.toml", b"new\n"))
    err = raised.value
    assert (err.code, err.path) == ("write.failed.could_not_write_file", "/config.toml")  # under the root (issue 54)
    assert err.what.en == "could not write the file (no free backup name): /config.toml — the original is untouched."
    assert err.what.ko == "파일을 쓰지 못했습니다 (no free backup name): /config.toml — 원래 파일은 그대로입니다."
    cause = err.__cause__  # the OSError itself, for a caller that tells errors apart by errno
    assert (type(cause), cause.errno, cause.strerror, cause.filename) == (
        FileExistsError, errno.EEXIST, "no free backup name", str(f))
    assert f.read_bytes() == b"old\n"
    assert not (tmp_path / f"{base}.10000").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(TMP_PREFIX)] == []


def _root_and_tools():
    chattr, mount = shutil.which("chattr"), shutil.which("mount")
    if chattr is None or mount is None or os.geteuid() != 0:
        realenv.missing("chattr, mount 와 root 권한이 필요합니다 / chattr, mount and root are needed")
    return chattr, mount


def test_a_folder_the_os_cannot_make_is_named_by_its_lab_path_with_the_os_reason_and_the_folder_above(tmp_path):
    """A full file system (a tmpfs without a free inode): the error is the folder's lab path, the OS's reason in its
    own words, and a fix that names the folder above it to look at."""
    _, mount = _root_and_tools()
    etc = tmp_path / "root" / "etc"
    etc.mkdir(parents=True)
    if subprocess.run([mount, "-t", "tmpfs", "-o", "size=64k,nr_inodes=1", "tmpfs", str(etc)],
                      capture_output=True).returncode != 0:
        pytest.skip("this machine lets no test mount a tmpfs")
    try:
        with pytest.raises(WriteError) as raised:
            ensure_dir(Target(tmp_path / "root"), "/etc/containerd")
    finally:
        subprocess.run(["umount", str(etc)], check=True)
    err = raised.value
    reason = os.strerror(errno.ENOSPC)
    assert err.code == "write.failed.could_not_create_folder"
    assert err.path == "/etc/containerd"
    assert err.what.en == f"could not create the folder ({reason}): /etc/containerd"
    assert err.what.ko == f"폴더를 만들지 못했습니다 ({reason}): /etc/containerd"
    assert "ls -ld /etc; df -h /etc" in err.fix.en and "ls -ld /etc; df -h /etc" in err.fix.ko  # under the root (issue 54)


def test_a_folder_under_an_immutable_folder_is_refused_with_the_attribute_and_its_fix(tmp_path):
    """chattr +i: mkdir fails with EPERM, and the error says why (the attribute, which even root cannot write
    through) and how to lift it, at the folder that holds the attribute."""
    chattr, _ = _root_and_tools()
    etc = tmp_path / "root" / "etc"
    etc.mkdir(parents=True)
    if subprocess.run([chattr, "+i", str(etc)], capture_output=True).returncode != 0:
        pytest.skip("this file system has no chattr +i attribute")
    try:
        with pytest.raises(WriteError) as raised:
            ensure_dir(Target(tmp_path / "root"), "/etc/containerd/conf.d")
    finally:
        subprocess.run([chattr, "-i", str(etc)], check=True)
    err = raised.value
    assert err.path == "/etc"
    assert "chattr +i" in err.what.en and "/etc" in err.what.en
    assert "chattr -i /etc" in err.fix.en and "chattr -i /etc" in err.fix.ko  # under the root (issue 54)
    assert str(tmp_path) not in err.fix.en + err.what.en
    assert not (etc / "containerd").exists()


# --- the write itself: a temporary file beside the target, named after it, with the file's owner and mode ------

@pytest.mark.parametrize("how", ["commit", "write_file"])
def test_the_new_bytes_are_renamed_over_the_file_from_a_temporary_file_beside_it_named_after_it(
        tmp_path, monkeypatch, how):
    """A rename is atomic only within one file system, and the folder's fsync covers it only in that folder: the
    temporary file is `.runbook-tmp.<name>.<random>` in the file's own folder, wherever TMPDIR is."""
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "elsewhere"))
    (tmp_path / "elsewhere").mkdir()
    etc = tmp_path / "root" / "etc" / "containerd"
    etc.mkdir(parents=True)
    made = _spied(monkeypatch, "replace")
    if how == "commit":
        commit(plan_write(Target(tmp_path / "root"), "/etc/containerd/config.toml", b"new\n"))
    else:
        safe_write.write_file(etc / "config.toml", "new\n")
    [(src, dst)] = made
    assert dst == str(etc / "config.toml") and (etc / "config.toml").read_bytes() == b"new\n"
    assert os.path.dirname(src) == str(etc)
    assert os.path.basename(src).startswith(f"{TMP_PREFIX}config.toml.")
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_file_another_user_owns_keeps_its_owner_and_its_mode_across_the_write(tmp_path):
    """root writing a file a service account owns (a kubelet's, a k3s's): the new file is theirs as the old one
    was, with its mode, not root's with 0644."""
    realenv.need_root()
    f = tmp_path / "config.toml"
    f.write_bytes(b"old\n")
    os.chown(f, 1234, 5678)
    os.chmod(f, 0o640)
    commit(plan_write(Target(tmp_path), "/config.toml", b"new\n"))
    st = os.stat(f)
    assert (f.read_bytes(), st.st_uid, st.st_gid, st.st_mode & 0o7777) == (b"new\n", 1234, 5678, 0o640)


def test_an_unchanged_plan_commits_nothing_and_says_it_wrote_nothing(tmp_path):
    f = tmp_path / "config.toml"
    f.write_bytes(b"same\n")
    before = os.stat(f)
    done = commit(plan_write(Target(tmp_path), "/config.toml", b"same\n"))
    assert (done.written, done.backup, done.sha256) == (False, None, safe_write.sha256(b"same\n"))
    assert os.stat(f).st_ino == before.st_ino and os.stat(f).st_mtime_ns == before.st_mtime_ns
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]


def test_a_folder_another_process_makes_between_the_look_and_the_mkdir_is_no_failure(tmp_path, monkeypatch):
    """ensure_dir looks for what is missing, then makes it: a folder made meanwhile (containerd's package, another
    run's cell) is there as wanted, not a failure."""
    real = safe_write._exists
    wanted = tmp_path / "etc" / "cdi"
    (tmp_path / "etc").mkdir()

    def racing(path):
        found = real(path)
        if not found and path == wanted:
            path.mkdir()  # the other process, just after the look
        return found

    monkeypatch.setattr(safe_write, "_exists", racing)
    assert ensure_dir(Target(tmp_path), "/etc/cdi") == ["/etc/cdi"]
    assert wanted.is_dir()


def test_the_sweep_returns_the_temporary_files_it_removed_and_leaves_everything_else(tmp_path):
    ours = [tmp_path / f"{TMP_PREFIX}config.toml.abc", tmp_path / f"{TMP_PREFIX}nvidia.yaml.def"]
    others = [tmp_path / "config.toml", tmp_path / ".runbook-tmpx", tmp_path / f"config.toml{BACKUP_INFIX}x"]
    for p in ours + others:
        p.write_bytes(b"x")
    (tmp_path / f"{TMP_PREFIX}a-folder").mkdir()
    removed = safe_write.sweep_stale_temps(tmp_path)
    assert sorted(removed) == sorted(ours)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([p.name for p in others] + [f"{TMP_PREFIX}a-folder"])


@pytest.mark.parametrize("umask", [0o022, 0o000, 0o077])
def test_a_folder_the_runbook_makes_is_0755_less_what_the_umask_takes(tmp_path, umask):
    """/etc/cdi, the toolkit folder: rwxr-xr-x, as `install -d` makes them, never wider whatever the umask
    (0000 in some CI and container shells), narrower when the umask says so."""
    old = os.umask(umask)
    try:
        assert ensure_dir(Target(tmp_path), "/etc/cdi") == ["/etc", "/etc/cdi"]
    finally:
        os.umask(old)
    for folder in (tmp_path / "etc", tmp_path / "etc/cdi"):
        assert os.stat(folder).st_mode & 0o7777 == 0o755 & ~umask, oct(os.stat(folder).st_mode)


# --- read_bytes: the one way a root's file is read, and what stands in its way ------------------------------


def test_a_file_is_read_within_the_limit_of_the_kind_it_is_read_as_and_said_by_the_path_the_user_knows(tmp_path):
    """A 100 KiB RuntimeClass is too large as a RuntimeClass (64 KiB), though it would pass as a CDI spec (512 KiB)
    by its name alone: the finding names the lab path given, the kind and its limit."""
    f = tmp_path / "runtimeclass.yaml"
    f.write_bytes(b"#" * (100 * 1024))
    with pytest.raises(FileTooLarge) as raised:
        safe_write.read_bytes(f, "runtimeclass", "/root/toolkit/runtimeclass.yaml")
    p = raised.value.problem
    assert (p.code, p.path) == ("read.too_large", "/root/toolkit/runtimeclass.yaml")
    assert (p.values["limit"], p.values["kind"]["en"]) == ("64.0 KiB", "a RuntimeClass")
    assert safe_write.read_bytes(f, "cdi", "/etc/cdi/x.yaml") == f.read_bytes()


def test_a_file_standing_where_a_folder_of_the_path_should_be_is_named_with_the_file_it_blocks(tmp_path):
    """/etc/cdi a file, not a folder: reading /etc/cdi/nvidia.yaml names /etc/cdi as what stands in the way and
    nvidia.yaml as what cannot be read, in the finding's values and in both languages' words."""
    etc = tmp_path / "etc"
    etc.mkdir()
    (etc / "cdi").write_bytes(b"not a folder\n")
    with pytest.raises(WriteError) as raised:
        safe_write.read_bytes(etc / "cdi" / "nvidia.yaml", "cdi", "/etc/cdi/nvidia.yaml")
    p = raised.value.problem
    assert (p.code, p.path) == ("write.failed.file_stands_where_folder_2", "/etc/cdi")  # under the root (issue 54)
    assert (p.values["name"], p.values["blocker"]) == ("nvidia.yaml", "/etc/cdi")
    assert p.what.en == "a file stands where a folder should be, so nvidia.yaml cannot be read or written: /etc/cdi"
    assert "mv /etc/cdi /etc/cdi.moved" in p.fix.ko


def test_a_folder_standing_where_the_file_should_be_is_named_at_its_path(tmp_path):
    folder = tmp_path / "config.toml"
    folder.mkdir()
    with pytest.raises(WriteError) as raised:
        safe_write.read_bytes(folder, "config", "/etc/containerd/config.toml")
    p = raised.value.problem
    assert (p.code, p.path, p.values["at"]) == ("write.failed.folder_stands_where_file", "/etc/containerd/config.toml",
                                                 "/etc/containerd/config.toml")  # as the user wrote it (issue 54)
    assert p.what.en == "a folder stands where a file should be: /etc/containerd/config.toml"


def test_backups_are_pruned_to_the_newest_n_and_the_oldest_original_always_stays(tmp_path, monkeypatch):
    """The rule (docs/GUARANTEES.md, 2): after each backup, a file keeps its oldest backup (the bytes from before
    the first run) and its `keep_backups` newest; names that are not the runbook's backups of it are never
    touched, and `.10` is newer than `.9`."""
    f = tmp_path / "config.toml"
    f.write_bytes(b"original\n")
    stamps = iter(f"20261203T1200{n:02d}Z" for n in range(60))
    monkeypatch.setattr(safe_write, "backup_name", lambda host, when=None: f"{host.name}{BACKUP_INFIX}{next(stamps)}")
    (tmp_path / "config.toml.bak").write_bytes(b"someone's\n")
    for n in range(12):
        commit(plan_write(Target(tmp_path), "/config.toml", f"version {n}\n".encode()), keep_backups=3)
    kept = sorted(p.name for p in tmp_path.glob(f"config.toml{BACKUP_INFIX}*"))
    assert kept == [f"config.toml{BACKUP_INFIX}20261203T1200{n:02d}Z" for n in (0, 9, 10, 11)]
    assert (tmp_path / kept[0]).read_bytes() == b"original\n"
    assert (tmp_path / "config.toml.bak").read_bytes() == b"someone's\n"
    same = f"config.toml{BACKUP_INFIX}20261203T130000Z"
    for n in range(11):
        (tmp_path / (same if n == 0 else f"{same}.{n}")).write_bytes(f"{n}\n".encode())
    assert [p.name for p in safe_write.prune_backups(f, 2)][-1] == f"{same}.8"
    assert sorted(p.name for p in tmp_path.glob(f"config.toml{BACKUP_INFIX}*"))[-2:] == [f"{same}.10", f"{same}.9"]
