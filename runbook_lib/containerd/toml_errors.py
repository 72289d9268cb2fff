"""A TOML syntax error as a verdict a student can act on: file, line, column, the line as written, what the
parser's terse reason means, and the exact line to write or delete.

tomllib's reasons are short English phrases ("Illegal character '\\n'", "Cannot overwrite a value"); a
student needs to read "the closing quote is missing" and see the line with the quote added. Duplicates are
named by their full key and both lines, found with the layout scanner (which reads statements without
judging them, so it still works on a file with a duplicate)."""

from __future__ import annotations

import re
import tomllib

from runbook_lib.findings.errors import ConfigError
from runbook_lib.findings.problem import say, words
from runbook_lib.containerd.layout import scan
from runbook_lib.containerd.versions import format_path

_POS = re.compile(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)")

# tomllib's reason (prefix) -> the finding code whose words say what it means (runbook_lib/data/findings.yaml)
_REASONS = {
    "Expected ']]' at the end of an array declaration": "toml.array_header_unclosed",
    "Expected '=' after a key": "toml.no_equals",
    "Invalid value": "toml.invalid_value",
    "Expected newline or end of document after a statement": "toml.text_after_value",
    "Unclosed array": "toml.array_unclosed",
    "Unclosed inline table": "toml.inline_table_unclosed",
    "Invalid statement": "toml.invalid_statement",
    "Invalid initial character for a key part": "toml.invalid_key",
}


def toml_error(exc: tomllib.TOMLDecodeError, text: str, lab_path: str, at: str | None = None) -> ConfigError:
    m = _POS.search(str(exc))
    reason = _POS.sub("", str(exc)).strip()
    lines = text.split("\n")
    line = int(m.group(1)) if m and m.group(1) else len(lines)
    col = int(m.group(2)) if m and m.group(2) else None
    shown = lines[line - 1] if 0 < line <= len(lines) else ""
    excerpt = f"{line:>5} | {_visible(shown)}" + (f"\n      | {' ' * (col - 1)}^" if col else "")
    where = say("toml.at_line_column", line=line, col=col) if col else say("toml.at_line", line=line)
    if col and _control_in_comment(shown, col):  # containerd 1.6 reads it: not "a syntax error containerd rejects"
        code, hexa = "toml.control_in_comment", f"{ord(shown[col - 1]):02x}"
        what, fix, _ = words(code, at=where, byte=f"0x{hexa}", hex=hexa, path=lab_path, path_at=at or lab_path)
        return ConfigError(what, fix, path=lab_path, line=line, col=col, excerpt=excerpt, code=code)
    code, values = _explain(reason, text, shown, line)
    if col and 0 < col <= len(shown) and _is_control(shown[col - 1]):  # tomllib would say '\x01', a Python repr
        code, hexa = "toml.control_character", f"{ord(shown[col - 1]):02x}"
        values = {"byte": f"0x{hexa}", "hex": hexa, "u": f"{ord(shown[col - 1]):04x}", "path": lab_path,
                  "path_at": at or lab_path}
    detail, fix, _ = words(code, line=line, col=col or "-", reason=reason, **values)
    what = words("toml.syntax", at=where, detail=detail)[0]
    return ConfigError(what, fix, path=lab_path, line=line, col=col, excerpt=excerpt, code=code)


def _explain(reason: str, text: str, shown: str, line: int) -> tuple[str, dict]:
    """The finding code for tomllib's reason, and the values its words need."""
    if reason.startswith("Cannot overwrite a value") or reason.startswith("Cannot declare"):
        dup = _duplicate(text, line)
        if dup:
            code, more = _duplicate_table_fix(text, line, dup[1]) or ("toml.duplicate", {})
            return code, {"name": dup[0], "first": dup[1], "shown": shown.strip(), **more}
    if _unclosed_quote(shown) and (reason.startswith("Illegal character") or reason.startswith("Unterminated string")):
        q = _unclosed_quote(shown)
        return "toml.unclosed_quote", {"quote": q, "fixed": f"{shown.strip()}{q}"}
    repaired = _repair(shown)
    if repaired is not None:
        return repaired
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
    return _read_strings(line)[0]


def _read_strings(line: str) -> tuple[int, str | None]:
    """Reads the line's single-line strings: where its comment starts (or the line's length), and the quote a
    string opened and never closed (None when every string is closed)."""
    quote, i = None, 0
    while i < len(line):
        c = line[i]
        if quote is None and c == "#":
            return i, None
        if quote is None and c in "\"'":
            quote = c
        elif quote == '"' and c == "\\":
            i += 1
        elif c == quote:
            quote = None
        i += 1
    return len(line), quote


# Characters a Korean input method, a web page or a word processor puts where TOML needs the ASCII one.
_LOOKALIKES = {"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u2033": '"', "\uff02": '"',
               "\u2018": "'", "\u2019": "'", "\u2032": "'", "\uff07": "'",
               "\uff1d": "=", "\uff3b": "[", "\uff3d": "]", "\uff0e": ".", "\u3000": " ", "\u00a0": " ",
               "\u2002": " ", "\u2003": " ", "\u2009": " ", "\u200b": ""}
_QUOTES = "\u201c\u201d\u201e\u2033\uff02\u2018\u2019\u2032\uff07"
_BOOL_WORDS = {"true": "true", "yes": "true", "on": "true", "false": "false", "no": "false", "off": "false"}
_KEY = r'[A-Za-z0-9_-]+|"[^"]*"|\'[^\']*\''
_KEYVALUE = re.compile(rf"^\s*((?:{_KEY})(?:\s*\.\s*(?:{_KEY}))*)\s*([=:])\s*(.*?)\s*$")


def _repair(shown: str) -> tuple[str, dict] | None:
    """The finding code and the corrected line for the syntax errors hands make most: typographic or
    full-width characters, `key: value` as in YAML, a boolean spelt True or yes, a string without its quotes,
    a header without its closing bracket. Only a line that TOML reads is ever offered as the fix."""
    line, code, values = shown.strip(), None, {}
    odd = [c for c in dict.fromkeys(line) if c in _LOOKALIKES]
    if odd:
        code = "toml.typographic_quotes" if any(c in _QUOTES for c in odd) else "toml.lookalike_character"
        values["chars"] = " ".join(f"U+{ord(c):04X}" for c in odd)
        line = "".join(_LOOKALIKES.get(c, c) for c in line)
    kv = _KEYVALUE.match(line)
    if line.startswith("[") and not line.rstrip().endswith("]") and "=" not in line:
        code, line = code or "toml.header_unclosed", line.rstrip() + "]"
    elif kv and not _reads(line):
        key, sep, raw = kv.groups()
        raw, comment = (raw.split(" #", 1) + [""])[:2] if not raw.startswith(("\"", "'")) else (raw, "")
        raw = raw.strip()
        if sep == ":":
            code = code or "toml.yaml_colon"
        if raw.lower() in _BOOL_WORDS and raw != raw.lower() or raw.lower() in ("yes", "no", "on", "off"):
            code, values["value"], raw = code or "toml.boolean_spelling", raw, _BOOL_WORDS[raw.lower()]
        elif raw and not _reads(f"x = {raw}") and not any(c in raw for c in "\"'[]{}= \t"):
            code, values["value"], raw = code or "toml.unquoted_string", raw, f'"{raw}"'
        line = f"{key} = {raw}" + (f"  #{comment}" if comment else "")
    quoted_bool = re.match(r'^(.*?=\s*)(["\'])(true|false)\2(\s*(#.*)?)$', line, re.I)
    if quoted_bool:  # "true" in quotes is a string: the fix is never the string boolean step 3 would refuse
        line = quoted_bool.group(1) + quoted_bool.group(3).lower() + quoted_bool.group(4)
    if code is None or not _reads(line):
        return None
    return code, {**values, "fixed": line}


def _reads(line: str) -> bool:
    try:
        tomllib.loads(line)
    except tomllib.TOMLDecodeError:
        return False
    return True


def _duplicate_table_fix(text: str, line: int, first: int) -> tuple[str, dict] | None:
    """For a table header written twice, what deleting only that header line would do is a guess: its keys
    join whatever table comes before it (the options sub-table, say). None when that table is the first
    definition and the rest reads; otherwise the repeated block (the table and its sub-tables) is either a
    copy, deleted whole, or has keys of its own, to be moved under the first header."""
    layout = scan(text)
    header = next((h for h in layout.headers if h.line == line - 1 and not h.is_array), None)
    if header is None:
        return None
    lines = text.split("\n")
    before = max((h.line for h in layout.headers if h.line < header.line), default=-1)
    if before == first - 1 and _reads("\n".join(lines[:line - 1] + lines[line:])):
        return None
    end = layout.subtree_end(header) + 1
    prev = next((h for h in layout.headers if h.line == before), None)
    if prev is not None and header.path[-1:] == ("options",) and header.path[:-2] == prev.path[:-1] \
            and layout.header_for(prev.path + ("options",)) is None:  # runc's options header copied, not renamed
        fixed = f"[{'.'.join(prev.raw_parts + ['options'])}]"
        if _reads("\n".join(lines[:line - 1] + [fixed] + lines[line:])):
            return "toml.duplicate_options", {"fixed": fixed, "runtime": prev.path[-1]}
    rest, block = "\n".join(lines[:line - 1] + lines[end:]), "\n".join(lines[line - 1:end])
    first_header = next((h for h in layout.headers if h.line == first - 1), None)
    values = {"end": end, "first_end": layout.subtree_end(first_header) + 1 if first_header else first}
    try:
        if _within(tomllib.loads(block), tomllib.loads(rest)):
            return "toml.duplicate_block", values
    except tomllib.TOMLDecodeError:
        pass
    return "toml.duplicate_table", values


def _within(part: dict, whole: dict) -> bool:
    """Every key of ``part`` is in ``whole`` with the same value."""
    return all(isinstance(whole, dict) and k in whole and (_within(v, whole[k]) if isinstance(v, dict) else whole[k] == v)
               for k, v in part.items())


def _unclosed_quote(line: str) -> str | None:
    """The quote character a single-line string on this line opened and never closed."""
    return _read_strings(line)[1]


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
