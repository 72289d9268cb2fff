"""plan -> backup -> atomic write: unchanged writes nothing, backups never collide, the mode is kept."""

import os
import stat

from runbook_lib.fs.safe_write import BACKUP_INFIX, commit, plan_write, sweep_stale_temps, TMP_PREFIX
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
