"""A TOML syntax error as a verdict a student can act on: file, line, column, the line as written, what the
parser's terse reason means, and the exact line to write or delete.

tomllib's reasons are short English phrases ("Illegal character '\\n'", "Cannot overwrite a value"); a
student needs to read "the closing quote is missing" and see the line with the quote added. Duplicates are
named by their full key and both lines, found with the layout scanner (which reads statements without
judging them, so it still works on a file with a duplicate)."""

from __future__ import annotations

import re
import tomllib

from ..errors import ConfigError
from ..findings import words
from ..messages import Msg
from .layout import scan
from .versions import format_path

_POS = re.compile(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)")

# tomllib's reason (prefix) -> the finding code whose words say what it means (runbook_lib/data/findings.yaml)
_REASONS = {
    "Expected ']' at the end of a table declaration": "toml.header_unclosed",
    "Expected ']]' at the end of an array declaration": "toml.array_header_unclosed",
    "Expected '=' after a key": "toml.no_equals",
    "Invalid value": "toml.invalid_value",
    "Expected newline or end of document after a statement": "toml.text_after_value",
    "Unclosed array": "toml.array_unclosed",
    "Unclosed inline table": "toml.inline_table_unclosed",
    "Invalid statement": "toml.invalid_statement",
    "Invalid initial character for a key part": "toml.invalid_key",
}


def toml_error(exc: tomllib.TOMLDecodeError, text: str, lab_path: str) -> ConfigError:
    m = _POS.search(str(exc))
    reason = _POS.sub("", str(exc)).strip()
    lines = text.split("\n")
    line = int(m.group(1)) if m and m.group(1) else len(lines)
    col = int(m.group(2)) if m and m.group(2) else None
    shown = lines[line - 1] if 0 < line <= len(lines) else ""
    excerpt = f"{line:>5} | {_visible(shown)}" + (f"\n      | {' ' * (col - 1)}^" if col else "")
    at = Msg(f"{line}번째 줄" + (f" {col}번째 칸" if col else ""), f"line {line}" + (f", column {col}" if col else ""))
    if col and _control_in_comment(shown, col):  # containerd 1.6 reads it: not "a syntax error containerd rejects"
        code, hexa = "toml.control_in_comment", f"{ord(shown[col - 1]):02x}"
        what, fix, _ = words(code, at_ko=at.ko, at_en=at.en, byte=f"0x{hexa}", hex=hexa, path=lab_path)
        return ConfigError(what, fix, path=lab_path, line=line, col=col, excerpt=excerpt, code=code)
    code, values = _explain(reason, text, shown, line)
    if col and 0 < col <= len(shown) and _is_control(shown[col - 1]):  # tomllib would say '\x01', a Python repr
        code, hexa = "toml.control_character", f"{ord(shown[col - 1]):02x}"
        values = {"byte": f"0x{hexa}", "hex": hexa, "u": f"{ord(shown[col - 1]):04x}", "path": lab_path}
    detail, fix, _ = words(code, line=line, col=col or "-", reason=reason, **values)
    what = words("toml.syntax", at_ko=at.ko, at_en=at.en, detail_ko=detail.ko, detail_en=detail.en)[0]
    return ConfigError(what, fix, path=lab_path, line=line, col=col, excerpt=excerpt, code=code)


def _explain(reason: str, text: str, shown: str, line: int) -> tuple[str, dict]:
    """The finding code for tomllib's reason, and the values its words need."""
    if reason.startswith("Cannot overwrite a value") or reason.startswith("Cannot declare"):
        dup = _duplicate(text, line)
        if dup:
            return "toml.duplicate", {"name": dup[0], "first": dup[1], "shown": shown.strip()}
    if _unclosed_quote(shown) and (reason.startswith("Illegal character") or reason.startswith("Unterminated string")):
        q = _unclosed_quote(shown)
        return "toml.unclosed_quote", {"quote": q, "fixed": f"{shown.strip()}{q}"}
    return next((code for k, code in _REASONS.items() if reason.startswith(k)), "toml.unreadable"), {}


def _is_control(c: str) -> bool:
    return (ord(c) < 0x20 and c != "\t") or ord(c) == 0x7f


def _visible(line: str) -> str:
    """The line as it can be shown: a control character (NUL, ESC) as its Unicode picture (␀, ␛)."""
    return "".join(("\u2421" if ord(c) == 0x7f else chr(0x2400 + ord(c))) if _is_control(c) else c for c in line)


def _control_in_comment(line: str, col: int) -> bool:
    """The character at the 1-based column is a control character after a '#' that no string holds."""
    if not (0 < col <= len(line) and _is_control(line[col - 1])):
        return False
    return _comment_start(line) < col - 1


def _comment_start(line: str) -> int:
    """Where the line's comment starts (its '#' outside any string), or the line's length."""
    quote, i = None, 0
    while i < len(line):
        c = line[i]
        if quote is None and c == "#":
            return i
        if quote is None and c in "\"'":
            quote = c
        elif quote == '"' and c == "\\":
            i += 1
        elif c == quote:
            quote = None
        i += 1
    return len(line)


def _unclosed_quote(line: str) -> str | None:
    """The quote character a single-line string on this line opened and never closed."""
    quote, i = None, 0
    while i < len(line):
        c = line[i]
        if quote is None and c == "#":
            break
        if quote is None and c in "\"'":
            quote = c
        elif quote == '"' and c == "\\":
            i += 1
        elif c == quote:
            quote = None
        i += 1
    return quote


def _duplicate(text: str, line: int) -> tuple[str, int] | None:
    """(the duplicated key or table, written as in a header, and the 1-based line where it first appears)."""
    try:
        layout = scan(text)
    except (ValueError, tomllib.TOMLDecodeError):
        return None
    here = [(h.path, h.line) for h in layout.headers if h.line == line - 1]
    here += [(kv.full_path(), kv.line) for kv in layout.keyvalues if kv.line == line - 1]
    if not here:
        return None
    path, at = here[0]
    earlier = [(h.path, h.line) for h in layout.headers if h.line < at and not h.is_array]
    earlier += [(kv.full_path(), kv.line) for kv in layout.keyvalues if kv.line < at]
    for other, ln in sorted(earlier, key=lambda e: e[1]):
        # the same key, or a value that a later dotted key or header tries to open as a table
        if other == path or (other == path[:len(other)] and any(kv.full_path() == other for kv in layout.keyvalues)):
            return format_path(path), ln + 1
    return None
