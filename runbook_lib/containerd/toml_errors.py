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
from ..messages import Msg
from .layout import scan
from .versions import format_path

_POS = re.compile(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)")

# tomllib's reason (prefix) -> what it means, in both languages.
_REASONS = {
    "Expected ']' at the end of a table declaration": Msg("섹션 헤더를 닫는 대괄호 ] 가 없습니다.",
                                                          "the section header has no closing bracket ]."),
    "Expected ']]' at the end of an array declaration": Msg("배열 테이블 헤더를 닫는 ]] 가 없습니다.",
                                                            "the array-of-tables header has no closing ]]."),
    "Expected '=' after a key": Msg("키 다음에 = 가 없습니다. 한 줄은 '키 = 값' 꼴이어야 합니다.",
                                    "there is no = after the key; each line must read 'key = value'."),
    "Invalid value": Msg("값을 읽을 수 없습니다. 문자열은 따옴표로 감싸고, 참/거짓은 따옴표 없이 true 나 false 로 적습니다.",
                         "the value cannot be read: strings need quotes, booleans are a bare true or false."),
    "Expected newline or end of document after a statement": Msg(
        "값 뒤에 남는 글자가 있습니다. 한 줄에는 '키 = 값' 하나만 적을 수 있습니다 (주석은 # 뒤에).",
        "there is more text after the value; a line holds one 'key = value' only (comments go after #)."),
    "Unclosed array": Msg("배열의 닫는 대괄호 ] 가 없습니다.", "the array has no closing bracket ]."),
    "Unclosed inline table": Msg("인라인 테이블의 닫는 중괄호 } 가 없습니다.", "the inline table has no closing brace }."),
    "Invalid statement": Msg("이 줄은 키 = 값도, [섹션] 헤더도 아닙니다.", "this line is neither key = value nor a [section] header."),
    "Invalid initial character for a key part": Msg("키가 쓸 수 없는 글자로 시작합니다. 점이나 공백이 든 이름은 따옴표로 감싸세요.",
                                                    "a key starts with a character keys cannot have; quote names that hold dots or spaces."),
}


def toml_error(exc: tomllib.TOMLDecodeError, text: str, lab_path: str) -> ConfigError:
    m = _POS.search(str(exc))
    reason = _POS.sub("", str(exc)).strip()
    lines = text.split("\n")
    line = int(m.group(1)) if m and m.group(1) else len(lines)
    col = int(m.group(2)) if m and m.group(2) else None
    shown = lines[line - 1] if 0 < line <= len(lines) else ""
    excerpt = f"{line:>5} | {shown}" + (f"\n      | {' ' * (col - 1)}^" if col else "")
    at = Msg(f"{line}번째 줄" + (f" {col}번째 칸" if col else ""), f"line {line}" + (f", column {col}" if col else ""))
    what, fix = _explain(reason, text, shown, line)
    what = Msg(f"TOML 문법 오류 ({at.ko}): {what.ko} containerd 는 문법 오류가 있는 설정을 통째로 거부하고 시작하지 않습니다.",
               f"TOML syntax error ({at.en}): {what.en} containerd rejects a config with a syntax error as a whole "
               "and does not start.")
    return ConfigError(what, fix, path=lab_path, line=line, col=col, excerpt=excerpt)


def _explain(reason: str, text: str, shown: str, line: int) -> tuple[Msg, Msg]:
    if reason.startswith("Cannot overwrite a value") or reason.startswith("Cannot declare"):
        dup = _duplicate(text, line)
        if dup:
            name, first = dup
            return (Msg(f"같은 키(또는 테이블)를 다시 정의했습니다: {name} (처음 정의는 {first}번째 줄).",
                        f"{name} is defined again (first defined on line {first})."),
                    Msg(f"{line}번째 줄을 지우세요: {shown.strip()}", f"delete line {line}: {shown.strip()}"))
    if _unclosed_quote(shown) and (reason.startswith("Illegal character") or reason.startswith("Unterminated string")):
        q = _unclosed_quote(shown)
        return (Msg(f"문자열을 닫는 따옴표({q})가 없습니다.", f"the string has no closing quote ({q})."),
                Msg(f"이 줄로 고치세요: {shown.strip()}{q}", f"write this line instead: {shown.strip()}{q}"))
    meaning = next((v for k, v in _REASONS.items() if reason.startswith(k)), None)
    what = Msg(f"{meaning.ko} (파서: {reason})", f"{meaning.en} (parser: {reason})") if meaning else \
        Msg(f"파서가 이 줄을 읽지 못했습니다: {reason}", f"the parser cannot read this line: {reason}")
    fix = Msg("표시된 줄을 고치세요. 점이 든 섹션 이름은 따옴표로 감싸고(예: [plugins.\"io.containerd.grpc.v1.cri\"]), "
              "문자열은 따옴표를 닫았는지 확인하세요.",
              "correct the line shown: quote section names that hold dots (e.g. [plugins.\"io.containerd.grpc.v1.cri\"]) "
              "and close every string's quotes.")
    return what, fix


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
