"""Ask containerd itself how it reads a config file (`containerd --config FILE config dump`).

Our own parsers prove only that the TOML is well-formed; containerd silently drops misplaced tables and
unknown keys, so the runbook asks the consumer. When the target root is not `/`, the file's `imports`
(absolute paths such as /etc/containerd/conf.d/*.toml) must mean paths under the root: containerd runs
chrooted in a throw-away view of the root: its skeleton in a temp folder (removed after), its binds made in a
private mount namespace, so nothing is mounted on the host and nothing written under the root.
"""
from __future__ import annotations
from runbook_lib.findings.catalog import say

import os
import shutil
import subprocess
import tempfile
import tomllib
from pathlib import Path

from runbook_lib.fs.lifeline import child_preexec
from runbook_lib.containerd.versions import NO_VERSION_LINE, of_dump

# containerd's own binary and its shared libraries come from the host; everything else from the root.
_HOST_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")

# Runs containerd in the view. Runs inside `unshare --mount`: every mount dies with the namespace. The view's
# skeleton (its folders, empty files to bind over, the symlinks) is made beforehand in a temp folder of this
# machine (_view_skeleton), and every bind is one line of an fstab there, so one `mount --all` makes them all.
# Arguments: the fstab, the view, the config path as seen inside the view.
_VIEW_SCRIPT = r"""
set -eu
mount --all --fstab "$1"
exec chroot "$2" /.runbook-containerd --config "$3" config dump
"""


def _fstab_field(path: str) -> str:
    """A path as one fstab field: space, tab, newline and backslash written as octal escapes (fstab(5))."""
    return "".join(f"\\{ord(c):03o}" if c in " \t\n\\" else c for c in path)


def _view_skeleton(view: Path, root: Path, binary: str) -> list[tuple[str, str, str]]:
    """The view of `root` containerd is chrooted in, made under `view` (a folder of its own): the root's entries
    and the host's _HOST_DIRS, /dev, /proc and the containerd binary. Symlinks are made as they are; each
    folder or file is a mount point, and the binds to make there are returned (source, target, options)."""
    binds = []

    def place(source: str, name: str) -> None:
        target = view / name
        if os.path.islink(source):
            os.symlink(os.readlink(source), target)
            return
        if os.path.isdir(source):
            target.mkdir()
        else:  # a file (or a device, socket, fifo): bound over an empty file
            target.touch()
        binds.append((source, str(target), "rbind" if target.is_dir() else "bind"))

    skipped = {*_HOST_DIRS, "dev", "proc"}
    for name in sorted(os.listdir(root)):
        if name not in skipped:
            place(str(root / name), name)
    for name in _HOST_DIRS:
        if os.path.islink(f"/{name}") or os.path.isdir(f"/{name}"):
            place(f"/{name}", name)
    for name in ("dev", "proc"):
        (view / name).mkdir()
        binds.append((f"/{name}", str(view / name), "rbind"))
    (view / ".runbook-containerd").touch()
    binds.append((binary, str(view / ".runbook-containerd"), "bind"))
    return binds


class ContainerdRejected(ValueError):
    """containerd refused the config file; carries its own words."""

    def __init__(self, config_path: Path, stderr: str, returncode: int):
        self.config_path = Path(config_path)
        self.stderr = stderr.strip()
        self.returncode = returncode
        self.said = said = _containerd_said(self.stderr)
        message = say("verify.containerd_rejected", config_path=config_path, returncode=returncode, said=said)
        self.message_ko, self.message_en = message.ko, message.en
        super().__init__(self.message_ko + "\n\n" + self.message_en)


def _containerd_said(stderr: str) -> str:
    """The line that carries containerd's error, without the log prefix and deprecation warnings."""
    lines = [ln for ln in stderr.splitlines() if ln.strip() and "level=warning" not in ln]
    return lines[-1] if lines else str(say("verify.no_message"))


def containerd_dump(containerd_bin: str, config_path: Path, root: Path) -> str:
    """The text of `config dump` for `config_path`, imports resolved under `root`."""
    config_path, root = Path(config_path), Path(root)
    binary = shutil.which(containerd_bin) or containerd_bin
    if not Path(binary).is_file():
        raise FileNotFoundError(
            str(say("verify.containerd_binary_not_found", containerd_bin=containerd_bin))
        )
    if root.resolve() == Path("/"):
        argv = [binary, "--config", str(config_path), "config", "dump"]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=60, preexec_fn=child_preexec)
    else:
        proc = _dump_in_view(binary, config_path, root)
    if proc.returncode != 0:
        raise ContainerdRejected(config_path, proc.stderr, proc.returncode)
    return proc.stdout


def _dump_in_view(binary: str, config_path: Path, root: Path) -> subprocess.CompletedProcess:
    root_abs = root.resolve()
    try:
        inside = "/" + str(config_path.absolute().relative_to(root.absolute()))
    except ValueError:
        raise ValueError(
            str(say("verify.config_file_not_under", root=root, config_path=config_path))
        ) from None
    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        raise PermissionError(
            str(say("verify.checking_containerd_under_root"))
        )
    with tempfile.TemporaryDirectory(prefix="runbook-view-") as tmp:
        view = Path(tmp) / "view"
        view.mkdir()
        view.chmod(0o755)
        binds = _view_skeleton(view, root_abs, binary)
        fstab = Path(tmp) / "fstab"
        fstab.write_text("".join(f"{_fstab_field(src)} {_fstab_field(dst)} none {opts} 0 0\n" for src, dst, opts in binds))
        argv = [unshare, "--mount", "--propagation", "private", "sh", "-c", _VIEW_SCRIPT, "sh", str(fstab), str(view), inside]
        return subprocess.run(argv, capture_output=True, text=True, timeout=60, preexec_fn=child_preexec)


def runtimes_table(dump: dict) -> dict:
    """The CRI `containerd` table (default_runtime_name, runtimes) of a parsed dump, or {}."""
    table = dump  # containerd 1.6/1.7 dump version 2, 2.0-2.2 version 3, 2.3+ version 4 (versions.of_dump)
    for key in of_dump(dump.get("version", NO_VERSION_LINE)).containerd_table:
        table = table.get(key, {})
    return table


def containerd_reading(containerd_bin: str, config_path: Path, root: Path, runtime_name: str) -> dict:
    """What containerd reads for `runtime_name`: its table (None when containerd does not see it),
    the default runtime name, all runtime names, and the disabled plugins."""
    return reading_of(tomllib.loads(containerd_dump(containerd_bin, config_path, root)), runtime_name)


def reading_of(dump: dict, runtime_name: str) -> dict:
    """What a parsed `config dump` says of `runtime_name` (containerd_reading's fields)."""
    table = runtimes_table(dump)
    runtimes = table.get("runtimes", {})
    return {
        "config_version": dump.get("version"),
        "default_runtime_name": table.get("default_runtime_name"),
        "runtime_names": sorted(runtimes),
        "runtime": runtimes.get(runtime_name),
        "disabled_plugins": dump.get("disabled_plugins", []),
        "imports": dump.get("imports", []),
    }
