"""containerd's own reading of a config as it is now and as a plan would leave it, before anything is written.

The node is never touched: the files containerd reads (the main config and every import, as the node resolves
them) are copied at their own paths into a private temp folder, once with the bytes the disk holds and once
with the planned bytes over them, and containerd is asked to `config dump` each copy (chrooted in it, as
verify.py does for a lab root, so an absolute import means the copy's file). Both readings are taken the same
way, so whatever a copy cannot reproduce shows in both and never as a difference.
"""

from __future__ import annotations

import subprocess
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from runbook_lib.containerd import verify


@dataclass
class Readings:
    now: dict | None          # containerd's dump of the node's config as it is (None: it could not be read)
    planned: dict | None      # ... of the config as planned
    rejected_now: str | None = None       # containerd's words when it refuses the config as it is
    rejected_planned: str | None = None   # ... as planned


def _write_copy(base: Path, files: dict[str, bytes]) -> None:
    for lab_path, data in files.items():
        host = base / lab_path.lstrip("/")
        host.parent.mkdir(parents=True, exist_ok=True)
        host.write_bytes(data)


def _dump(binary: str, config_lab_path: str, files: dict[str, bytes]) -> tuple[dict | None, str | None]:
    with tempfile.TemporaryDirectory(prefix="runbook-planned-") as tmp:
        base = Path(tmp)
        _write_copy(base, files)
        try:
            text = verify.containerd_dump(binary, base / config_lab_path.lstrip("/"), base)
        except verify.ContainerdRejected as exc:
            return None, exc.said
        except (OSError, ValueError, subprocess.SubprocessError):
            return None, None  # containerd could not be asked here (no unshare, not root): nothing to compare
    try:
        return tomllib.loads(text), None
    except tomllib.TOMLDecodeError:
        return None, None


def read_both(binary: str, config_lab_path: str, now: dict[str, bytes], planned: dict[str, bytes]) -> Readings:
    """containerd's reading of two copies of the node's files (lab path -> bytes): as they are, as planned."""
    before, said_before = _dump(binary, config_lab_path, now)
    if before is None:
        return Readings(None, None, rejected_now=said_before)
    after, said_after = _dump(binary, config_lab_path, planned)
    return Readings(before, after, rejected_planned=said_after)
