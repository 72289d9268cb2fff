"""Read a containerd config file: bytes -> text -> data, with errors a student can act on.

Keeps what the file looks like (UTF-8 BOM, CRLF line endings) so that writing it back changes only what the
runbook meant to change.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass

from runbook_lib.findings.errors import ConfigError
from runbook_lib.containerd.findings import raised
from runbook_lib.findings.messages import Msg
from runbook_lib.fs.tomldoc import MAX_DEPTH, TooDeep, loads
from runbook_lib.findings.catalog import say
from runbook_lib.containerd.toml_errors import toml_error  # noqa: F401  (re-exported: the verdict for a syntax error)
from runbook_lib.findings.problem import words
from runbook_lib.containerd.distro.detect import generated_finding

BOM = "\ufeff"
@dataclass
class TomlFile:
    lab_path: str
    text: str          # without BOM, with '\n' line endings
    data: dict
    bom: bool
    crlf: bool
    at: str = ""       # the file as a fix's command names it on this machine (under the root); "" : lab_path

    @property
    def empty(self) -> bool:
        return not self.data

    def encode(self, text: str) -> bytes:
        """Back to bytes in the file's own conventions."""
        if self.crlf:
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        return ((BOM if self.bom else "") + text).encode("utf-8")


def decode_text(raw: bytes, lab_path: str, at: str | None = None) -> tuple[str, bool, bool]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16 with its byte-order mark: PowerShell's > and Notepad
            what, fix, _ = words("toml.utf16", path=lab_path, path_at=at or lab_path)
            raise ConfigError(what, fix, path=lab_path, line=1, col=1, code="toml.utf16") from None
        line = raw[: exc.start].count(b"\n") + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ConfigError.of("config.unreadable.found_byte_not_utf", path=lab_path, line=line, col=col, value=raw[exc.start]) from None
    bom = text.startswith(BOM)
    if bom:
        text = text[1:]
    crlf = "\r\n" in text
    if crlf:
        text = text.replace("\r\n", "\n")
    return text, bom, crlf


def parse_text(text: str, lab_path: str, at: str | None = None) -> dict:
    try:
        return loads(text)
    except TooDeep as exc:
        what, fix, _ = words("input.too_deep", line=exc.line, limit=MAX_DEPTH)
        raise ConfigError(what, fix, path=lab_path, line=exc.line, col=exc.col, code="input.too_deep") from None
    except tomllib.TOMLDecodeError as exc:
        if "{{" in text:  # a k3s/RKE2 Go template: say so, not "TOML syntax error, quote your section names"
            finding = generated_finding(text, lab_path)
            if finding is not None:
                raise raised(finding) from None
        raise toml_error(exc, text, lab_path, at) from None


def load_toml(raw: bytes, lab_path: str, at: str | None = None) -> TomlFile:
    """``at``: the file as a fix's command names it on this machine (Target.shell_path), else its lab path."""
    text, bom, crlf = decode_text(raw, lab_path, at)
    return TomlFile(lab_path, text, parse_text(text, lab_path, at), bom, crlf, at or "")


def reads_as(text: str, expected: dict) -> bool:
    """True when tomllib reads ``text`` as exactly ``expected``: the acceptance test of every planned edit,
    so a mistake in how an edit was built can only stop it, never corrupt a file."""
    try:
        return tomllib.loads(text) == expected
    except tomllib.TOMLDecodeError:
        return False


def require_reads_as(text: str, expected: dict, lab_path: str, fix: Msg) -> None:
    if not reads_as(text, expected):
        raise ConfigError(
            say("load.planned_reads_back_otherwise"),
            fix, path=lab_path)
