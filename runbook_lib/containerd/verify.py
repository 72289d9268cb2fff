"""Ask containerd itself how it reads a config file (`containerd --config FILE config dump`).

Our own parsers prove only that the TOML is well-formed; containerd silently drops misplaced tables and
unknown keys, so the runbook asks the consumer. When the target root is not `/`, the file's `imports`
(absolute paths such as /etc/containerd/conf.d/*.toml) must mean paths under the root: containerd runs
chrooted in a throw-away view of the root built in a private mount namespace, so nothing is mounted or
written on the host or under the root.
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

# Builds the view and runs containerd in it. Runs inside `unshare --mount`: every mount dies with the
# namespace. Arguments: view dir, root, containerd binary, config path as seen inside the view.
_VIEW_SCRIPT = r"""
set -eu
view=$1; root=$2; bin=$3; cfg=$4
mount -t tmpfs -o mode=0755 runbook-view "$view"
for entry in "$root"/* "$root"/.[!.]* "$root"/..?*; do
    [ -e "$entry" ] || [ -L "$entry" ] || continue
    name=${entry##*/}
    case " $HOST_DIRS dev proc " in *" $name "*) continue ;; esac
    if [ -L "$entry" ]; then ln -s "$(readlink "$entry")" "$view/$name"
    elif [ -d "$entry" ]; then mkdir "$view/$name"; mount --rbind "$entry" "$view/$name"
    else : > "$view/$name"; mount --bind "$entry" "$view/$name"; fi
done
for name in $HOST_DIRS; do
    if [ -L "/$name" ]; then ln -s "$(readlink "/$name")" "$view/$name"
    elif [ -d "/$name" ]; then mkdir "$view/$name"; mount --rbind "/$name" "$view/$name"; fi
done
mkdir "$view/dev" "$view/proc"
mount --rbind /dev "$view/dev"
mount --rbind /proc "$view/proc"
: > "$view/.runbook-containerd"
mount --bind "$bin" "$view/.runbook-containerd"
exec chroot "$view" /.runbook-containerd --config "$cfg" config dump
"""

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
    with tempfile.TemporaryDirectory(prefix="runbook-view-") as view:
        argv = [unshare, "--mount", "--propagation", "private", "sh", "-c", _VIEW_SCRIPT, "sh",
                view, str(root_abs), binary, inside]
        env = dict(os.environ, HOST_DIRS=" ".join(_HOST_DIRS))
        return subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env, preexec_fn=child_preexec)


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
