"""Every OS error reading or writing a root's file is a bilingual finding naming the file as the student or operator
wrote it (its path under the root, never the grader's host path), with a fix for that file, and no traceback at any
entry point (issue 54).

EACCES needs a process the kernel refuses: these tests run as root, whose CAP_DAC_OVERRIDE reads through any mode,
so the run is started without that capability (and CAP_DAC_READ_SEARCH) in its bounding set (`setpriv
--bounding-set`): the kernel then answers EACCES exactly as it does to an unprivileged operator. The mapping of the
errors no test can make happen on demand (EIO) is held on the function, with an OSError carrying the errno."""

from __future__ import annotations

import errno
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from grading_helpers import step_records
from helpers import NOTEBOOK, REPO
from kernel_ports import run_papermill
from runbook_lib.findings.errors import ReadError, WriteError
from runbook_lib.fs import os_errors, safe_write
from runbook_lib.fs.target import Target

BIN = Path(sys.executable).parent
CONFIG = "/etc/containerd/config.toml"
HANG_GUARD = 300  # seconds: a hang's guard, not a speed assertion


def _without_dac(cmd: list[str]) -> list[str]:
    """``cmd`` run as a process the kernel holds to file modes: as root, without the capabilities that read and
    search through them; as another user, as it is."""
    if os.geteuid() != 0:
        return cmd
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: no process here is refused by a file's mode")
    return [setpriv, "--bounding-set", "-dac_override,-dac_read_search", *cmd]


def _lab(tmp: Path, name: str = "lab") -> Path:
    root = tmp / name
    subprocess.run([str(BIN / "runbook"), "lab-init", str(root)], check=True, capture_output=True, timeout=HANG_GUARD)
    (root / "etc/containerd").mkdir(parents=True)
    shutil.copy(root / "opt/fixtures/gpu-airgap/containerd/config.toml.base", root / CONFIG.lstrip("/"))
    return root


def _read_as_refused(root: Path, lab_path: str) -> dict:
    """safe_write.read_bytes of ``lab_path`` in a process the file's mode refuses: the finding it raises."""
    code = ("import json, sys\nfrom runbook_lib.fs import safe_write\nfrom runbook_lib.fs.target import Target\n"
            "from runbook_lib.findings.errors import RunbookError\n"
            f"t = Target({str(root)!r})\n"
            f"try:\n    safe_write.read_bytes(t.resolve({lab_path!r}), shown={lab_path!r})\n"
            "except RunbookError as exc:\n    print(json.dumps(exc.as_dict()))\n")
    done = subprocess.run(_without_dac([sys.executable, "-c", code]), capture_output=True, text=True, timeout=HANG_GUARD)
    assert done.returncode == 0 and done.stdout, done.stderr[-3000:]
    return json.loads(done.stdout)


def _bilingual_under_root(p: dict, root: Path, lab_path: str, fixed: str | None = None) -> None:
    """The finding is at ``lab_path``, says it in both languages, and its fix names ``fixed`` (default: the file)."""
    assert p["path"] == lab_path
    for part, named in (("what", lab_path), ("fix", fixed or lab_path)):
        assert named in p[part]["en"] and named in p[part]["ko"], (part, p[part])
        assert str(root) not in p[part]["en"] + p[part]["ko"], (part, p[part])  # never the host's path
    assert "[Errno" not in json.dumps(p)


def test_an_unreadable_config_is_a_finding_with_chmod_for_that_file(tmp_path):
    root = _lab(tmp_path)
    (root / CONFIG.lstrip("/")).chmod(0)
    p = _read_as_refused(root, CONFIG)
    assert p["code"] == "read.failed.permission"
    _bilingual_under_root(p, root, CONFIG)
    assert f"chmod 644 {CONFIG}" in p["fix"]["en"] and f"chmod 644 {CONFIG}" in p["fix"]["ko"]
    assert p["values"]["errno_name"] == "EACCES"


def test_a_folder_without_x_is_named_as_what_denies_the_read(tmp_path):
    root = _lab(tmp_path)
    (root / "etc/containerd").chmod(0o600)
    try:
        p = _read_as_refused(root, CONFIG)
    finally:
        (root / "etc/containerd").chmod(0o755)
    assert p["code"] == "read.failed.permission.folder"
    _bilingual_under_root(p, root, CONFIG, "/etc/containerd")
    assert p["values"]["denied"] == "/etc/containerd"
    assert "chmod 755 /etc/containerd" in p["fix"]["en"] and "chmod 755 /etc/containerd" in p["fix"]["ko"]


@pytest.mark.parametrize("make, code", [
    (lambda f: f.mkdir(), "write.failed.folder_stands_where_file"),
    (lambda f: os.mkfifo(f), "write.failed.not_a_regular_file"),
    (lambda f: socket.socket(socket.AF_UNIX).bind(str(f)), "write.failed.not_a_regular_file"),  # ENXIO on open
    (lambda f: os.symlink("config.toml", f), "path.outside_root.symbolic_links_loop"),  # ELOOP, in the root's walk
], ids=["EISDIR", "FIFO", "ENXIO", "ELOOP"])
def test_what_stands_where_the_config_should_be_is_named_under_the_root(tmp_path, make, code):
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    make(root / CONFIG.lstrip("/"))
    target = Target(root)
    with pytest.raises((ReadError, WriteError, PermissionError)) as raised:
        safe_write.read_bytes(target.resolve(CONFIG), shown=CONFIG)
    p = raised.value.problem.as_dict()
    assert p["code"] == code
    _bilingual_under_root(p, root, CONFIG)


def test_the_errors_no_test_makes_on_demand_are_mapped_by_their_errno(tmp_path):
    """EIO (a failing disk) and ENOSPC on a real write (/dev/full answers it to every write), each for the file
    as the user knows it; an errno with no finding of its own is named by its symbol, in both languages."""
    host = tmp_path / "etc/containerd/config.toml"
    eio = os_errors.read_error(OSError(errno.EIO, os.strerror(errno.EIO)), host, CONFIG).problem
    assert (eio.code, eio.path) == ("read.failed.io", CONFIG) and f"{CONFIG}.runbook-backup-" in eio.fix.en
    fd = os.open("/dev/full", os.O_WRONLY)
    try:
        with pytest.raises(OSError) as full:
            os.write(fd, b"x")
    finally:
        os.close(fd)
    nospace = os_errors.write_error(full.value, host, CONFIG).problem
    assert (nospace.code, nospace.path, nospace.values["errno_name"]) == ("write.failed.no_space", CONFIG, "ENOSPC")
    assert "df -h /etc/containerd" in nospace.fix.en and "df -h /etc/containerd" in nospace.fix.ko
    other = os_errors.read_error(OSError(errno.ENOMEDIUM, os.strerror(errno.ENOMEDIUM)), host, CONFIG).problem
    assert other.code == "read.failed.other" and "ENOMEDIUM" in other.what.en and "ENOMEDIUM" in other.what.ko
    assert str(tmp_path) not in eio.what.en + nospace.what.en + other.what.en


# --- the entry points: plain papermill and `runbook grade` ---------------------------------------------------

def _papermill(root: Path, out: Path, *args: str, refused: bool = False) -> subprocess.CompletedProcess:
    cmd = [str(BIN / "papermill"), "--no-progress-bar", "--log-level", "ERROR", str(NOTEBOOK), str(out),
           "-p", "root", str(root), *args]
    return run_papermill(_without_dac(cmd) if refused else cmd, capture_output=True, text=True, timeout=HANG_GUARD,
                         cwd=REPO)


def _findings(out: Path) -> list[dict]:
    return [p for record in step_records(out).values() for p in record.get("problems", [])]


def _cell_errors(out: Path) -> list[str]:
    nb = json.loads(out.read_text())
    return [o.get("ename", "") for c in nb["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]


def test_plain_papermill_on_an_unreadable_config_says_it_without_a_traceback(tmp_path):
    root = _lab(tmp_path)
    (root / CONFIG.lstrip("/")).chmod(0)
    out = tmp_path / "out.ipynb"
    proc = _papermill(root, out, refused=True)
    assert proc.returncode != 0  # the run stops: its config cannot be read
    assert "PermissionError" not in _cell_errors(out) and "PermissionError" not in out.read_text()
    (p,) = [p for p in _findings(out) if p["code"] == "read.failed.permission"]
    _bilingual_under_root(p, root, CONFIG)
    assert (root / CONFIG.lstrip("/")).stat().st_mode & 0o777 == 0  # nothing written


def test_a_config_linked_out_of_the_root_is_said_as_the_link_with_a_fix_that_moves_nothing_onto_itself(tmp_path):
    root = _lab(tmp_path)
    (root / CONFIG.lstrip("/")).unlink()
    os.symlink("/etc/shadow", root / CONFIG.lstrip("/"))
    out = tmp_path / "out.ipynb"
    _papermill(root, out, "-p", "mode", "check")
    found = _findings(out)
    assert f"mv {CONFIG} {CONFIG}" not in out.read_text()
    assert "prepare.misnamed" not in [p["code"] for p in found]
    (p,) = [p for p in found if p["code"] == "prepare.config_link_dangling"]
    assert p["path"] == CONFIG and "/etc/shadow" in p["what"]["en"] and "/etc/shadow" in p["what"]["ko"]
    assert f"rm {CONFIG}" in p["fix"]["en"] and f"rm {CONFIG}" in p["fix"]["ko"]


@pytest.mark.parametrize("make, code", [
    (lambda f: os.mkfifo(f), "write.failed.not_a_regular_file"),
    (lambda f: os.symlink("config.toml", f), "path.outside_root.symbolic_links_loop"),
], ids=["FIFO", "ELOOP"])
def test_plain_papermill_names_a_fifo_or_a_link_loop_under_the_root(tmp_path, make, code):
    root = _lab(tmp_path)
    (root / CONFIG.lstrip("/")).unlink()
    make(root / CONFIG.lstrip("/"))
    out = tmp_path / "out.ipynb"
    _papermill(root, out, "-p", "mode", "check")
    found = [p for p in _findings(out) if p["code"] == code]
    assert found
    for p in found:
        _bilingual_under_root(p, root, CONFIG)
    assert all(not (p["path"] or "").startswith(str(root)) for p in _findings(out))


def test_runbook_grade_of_an_unreadable_config_is_bilingual_and_under_the_root(tmp_path):
    root = _lab(tmp_path, "student")
    (root / CONFIG.lstrip("/")).chmod(0)
    out = tmp_path / "grades"
    done = subprocess.run(_without_dac([str(BIN / "runbook"), "grade", "--out", str(out), str(root)]),
                          capture_output=True, text=True, timeout=HANG_GUARD, cwd=REPO)
    assert "Traceback" not in done.stdout + done.stderr
    grades = (out / "grades.json").read_text()
    assert "[Errno 13]" not in grades and "[Errno 13]" not in done.stdout
    (student,) = json.loads(grades)["students"]
    findings = [f for t in student["tests"] for f in t["extra_data"].get("findings", [])]
    (p,) = [f for f in findings if f["code"] == "read.failed.permission"]
    assert p["path"] == CONFIG
    for part in ("what", "fix"):
        assert CONFIG in p[part]["en"] and CONFIG in p[part]["ko"] and str(root) not in p[part]["en"] + p[part]["ko"]


def test_a_write_onto_a_full_file_system_names_the_file_under_the_root_with_df_for_its_folder(tmp_path):
    """ENOSPC for real: a 64 KiB tmpfs at <root>/etc/containerd, and a write of 256 KiB to its config."""
    from runbook_lib.fs.safe_write import commit, plan_write
    mount = shutil.which("mount")
    folder = tmp_path / "root/etc/containerd"
    folder.mkdir(parents=True)
    if mount is None or os.geteuid() != 0 or subprocess.run(
            [mount, "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("this machine lets no test mount a tmpfs")
    try:
        (folder / "config.toml").write_bytes(b"version = 2\n")
        with pytest.raises(WriteError) as raised:
            commit(plan_write(Target(tmp_path / "root"), CONFIG, b"# x\n" * 65536))
        assert (folder / "config.toml").read_bytes() == b"version = 2\n"  # the original is untouched
    finally:
        subprocess.run(["umount", str(folder)], check=True)
    p = raised.value.problem
    assert (p.code, p.path, p.values["errno_name"]) == ("write.failed.no_space", CONFIG, "ENOSPC")
    assert "df -h /etc/containerd" in p.fix.en and "df -h /etc/containerd" in p.fix.ko
    assert str(tmp_path) not in p.what.en + p.what.ko + p.fix.en + p.fix.ko
