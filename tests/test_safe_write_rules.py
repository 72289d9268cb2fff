"""runbook_lib/fs/safe_write.py's rules, in process so that mutation testing sees them: a backup is made as every
write is (a temporary file in the file's own folder, named after the file, docs/GUARANTEES.md), its name is the
UTC moment it stands for and never collides; a folder that cannot be made is said with its cause and its fix."""

from __future__ import annotations

import calendar
import errno
import os
import shutil
import subprocess

import pytest

from runbook_lib.findings.errors import WriteError
from runbook_lib.fs import safe_write
from runbook_lib.fs.safe_write import BACKUP_INFIX, TMP_PREFIX, backup_name, commit, ensure_dir, plan_write, retire
from runbook_lib.fs.target import Target

from reliability_helpers import realenv  # skips, or fails with RUNBOOK_REQUIRE_REAL=1


def _links(monkeypatch) -> list[tuple[str, str]]:
    """Every os.link the code makes, as (source, destination)."""
    made: list[tuple[str, str]] = []
    real = os.link

    def link(src, dst, *a, **kw):
        made.append((os.fspath(src), os.fspath(dst)))
        return real(src, dst, *a, **kw)

    monkeypatch.setattr(os, "link", link)
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
    made = _links(monkeypatch)
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
    assert raised.value.code == "write.failed.could_not_write_file"
    assert "no free backup name" in raised.value.what.en
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
    assert f"ls -ld {etc}; df -h {etc}" in err.fix.en and f"ls -ld {etc}; df -h {etc}" in err.fix.ko


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
    assert f"chattr -i {etc}" in err.fix.en and f"chattr -i {etc}" in err.fix.ko
    assert not (etc / "containerd").exists()
