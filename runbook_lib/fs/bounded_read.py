"""Every file the runbook reads from a root, read one way: bounded by a size limit for its kind of file.

A student's root or another tool's node may hold anything where a config should be: a 3 GB sparse report.txt
(a sparse file's size is what counts: reading it reads 3 GB of zeros), a 200 MB comment line, a FIFO, a file
that grows while it is read, 20,000 files under an `imports` glob. So, for each file:

- it is opened without blocking (O_NONBLOCK: a FIFO or a device returns at once) and its size is taken from
  the open file (fstat, so what is checked is what is read);
- a size above its kind's limit is a finding (``read.too_large``) with the size and the limit, before a byte
  is read;
- at most limit + 1 bytes are read even when the size lied (a file growing under us, a /proc-like file);
- a folder the runbook lists (an imports glob's folder, conf.d, a CDI spec folder) brings at most
  ``MAX_FILES`` files (``read.too_many_files``).

The limits are fitted to real files, with a wide margin: the largest containerd config seen in
/work/shared/fixtures and conformance (containerd 1.6's `config default`) is 6.8 KB, a CDI spec nvidia-ctk
writes for an 8-GPU node with MIG is about 60 KB, the toolkit files are a few hundred bytes. A containerd config
is bounded twice (issue 54): 16 MiB in all, so a comment block of any size a site keeps there is read as containerd
reads it, and 1 MiB of content beyond its comment lines (CONTENT_LIMITS), which only a mistake makes.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from runbook_lib.findings.errors import ConfigError
from runbook_lib.fs import os_errors
from runbook_lib.findings.problem import say, words

KIB, MIB = 1024, 1024 * 1024

# kind -> the most bytes a file of that kind may hold.
LIMITS = {
    "config": 16 * MIB,       # containerd config.toml, its imports and drop-ins, k3s/RKE2 templates: kilobytes of
    #                           settings, and whatever comment a site keeps in it (a licence, a pasted runbook: a
    #                           5 MB comment block is a file containerd reads at once); CONTENT_LIMITS bounds the rest
    "cdi": 512 * KIB,         # a CDI spec (YAML or JSON): tens of kilobytes on the largest nodes (a 4 MB one
    #                           took 3 minutes and 470 MB to judge)
    "runtimeclass": 64 * KIB,  # a RuntimeClass manifest: a few hundred bytes
    "toolkit": 1 * MIB,       # the lab's result files (default.txt, parsed.txt, cdi-keys.txt, report.txt)
    "params": 64 * KIB,       # a papermill parameters file (-f): a dozen lines
}
# kind -> the most bytes of content (every line but a blank or a comment line) a file of that kind may hold.
# containerd reads a config of any size; what costs the runbook (and containerd) is its settings, not its
# comments: 15 MB of tables outgrew the run's 768 MiB memory limit, a 6 MB comment block is read in seconds. So a
# config is refused above 1 MiB of settings (a thousand times a real one, made by mistake) or 16 MiB in all.
CONTENT_LIMITS = {"config": 1 * MIB}
# What the findings call each kind: its words in the catalog (word.file_kind.*).
KIND_WORDS = {"config": "word.file_kind.config", "cdi": "word.file_kind.cdi", "runtimeclass": "word.file_kind.runtimeclass",
              "toolkit": "word.file_kind.toolkit", "params": "word.file_kind.params"}
# The most files one folder may bring: an imports glob, conf.d, a CDI spec folder. Real nodes have one to five.
MAX_FILES = 256
# The most names looked at in one folder (the runbook's own backups sit beside the files a glob matches).
MAX_ENTRIES = 65_536

# The file read last: when a run is stopped by its time or memory limit, what it was reading (runbook_lib.engine.limits).
last_read: str | None = None


class SpecialFile(OSError):
    """A FIFO, a device or a socket where a regular file should be: never read (it could block for ever)."""


class FileTooLarge(ConfigError):
    code = "read.too_large"


class TooManyFiles(ConfigError):
    code = "read.too_many_files"


def _too_large(shown: str, kind: str, size: int | str, at: str | None = None) -> FileTooLarge:
    # at: the file on this machine, as a fix's `mv` is pasted (under the root; issue 51)
    return FileTooLarge.of("read.too_large", shown, path_shown=shown, path_at=at or shown, size=_human(size),
                           limit=_human(LIMITS[kind]),
                           kind=say(KIND_WORDS[kind]).as_dict())  # one value, shown in each line's language


def _human(n: int | str) -> str:
    if isinstance(n, str):
        return n
    if n >= MIB:
        return f"{n / MIB:.1f} MiB"
    if n >= KIB:
        return f"{n / KIB:.1f} KiB"
    return f"{n} bytes"


def kind_for(name: str) -> str:
    """The kind of a file known only by its name: a CDI spec by its suffix, any other a containerd config (the
    runbook's Run also knows the toolkit folder and the RuntimeClass: Run.kind_of)."""
    return "cdi" if str(name).endswith((".yaml", ".yml", ".json")) else "config"


def read(path: Path | str, kind: str | None = None, shown: str | None = None) -> bytes | None:
    """The file's bytes, or None when it does not exist; ``shown`` is the path the user knows (the lab path).

    Raises IsADirectoryError for a folder, SpecialFile for a FIFO/device/socket, FileTooLarge above the limit."""
    global last_read
    kind = kind or kind_for(path)
    limit = LIMITS[kind]
    shown = shown or str(path)
    last_read = shown
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket (or a FIFO opened for writing elsewhere): not a file to read
            raise SpecialFile(errno.ENXIO, "not a regular file", str(path)) from None
        raise
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", str(path))
        if not stat.S_ISREG(st.st_mode):
            raise SpecialFile(errno.EINVAL, "not a regular file", str(path))
        if st.st_size > limit:
            raise _too_large(shown, kind, st.st_size, str(path))
        chunks, got = [], 0
        while got <= limit:
            chunk = os.read(fd, min(limit + 1 - got, 1 * MIB))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:  # the size said otherwise: the file grew, or its size is not what it holds
            raise _too_large(shown, kind, f"> {_human(limit)}", str(path))
        data = b"".join(chunks)
        if kind in CONTENT_LIMITS and len(data) > CONTENT_LIMITS[kind]:
            content = content_bytes(data)
            if content > CONTENT_LIMITS[kind]:
                raise FileTooLarge.of("read.too_large.content", shown, path_shown=shown, path_at=str(path), size=_human(content),
                                      limit=_human(CONTENT_LIMITS[kind]), kind=say(KIND_WORDS[kind]).as_dict())
        return data
    finally:
        os.close(fd)


def content_bytes(data: bytes) -> int:
    """The bytes of every line but a blank one or a comment line (its first non-blank character a `#`): what a
    config holds beyond its comments."""
    total = 0
    for line in data.split(b"\n"):
        stripped = line.lstrip(b" \t\r")
        if stripped and not stripped.startswith(b"#"):
            total += len(line) + 1
    return total


def names_in(folder: Path | str, shown: str, match=None) -> list[str]:
    """The names in a folder that ``match`` (a predicate; default: every name), sorted. More than MAX_FILES of
    them, or more than MAX_ENTRIES names at all, is a finding, found without listing them all."""
    out, seen = [], 0
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                seen += 1
                if seen > MAX_ENTRIES:
                    raise too_many(shown, f"> {MAX_ENTRIES}")
                if match is None or match(entry.name):
                    out.append(entry.name)
                    if len(out) > MAX_FILES:
                        raise too_many(shown, f"> {MAX_FILES}")
    except OSError as exc:  # a folder the run may not list (EACCES), EIO, ...: said for the folder under the root
        raise os_errors.read_error(exc, folder, shown) from None
    return sorted(out)


def too_many(shown: str, count: int | str) -> TooManyFiles:
    what, fix, _ = words("read.too_many_files", folder=shown, count=count, limit=MAX_FILES)
    return TooManyFiles(what, fix, path=shown, code="read.too_many_files")
