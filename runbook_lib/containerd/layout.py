"""Where things are in a TOML file: table headers and key/value lines, with their line numbers and raw text.

tomllib gives values but no positions, and tomlkit gives no line numbers; the runbook needs both, to insert a
table next to its siblings, to replace one value without touching its comment, and to tell a student "line
27". This scanner reads the statements of a TOML document (skipping the inside of strings and multi-line
arrays). Every edit made from it is verified by re-parsing the whole result with tomllib, so a scanner mistake
can only ever stop an edit, never corrupt a file.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass, field

Path_ = tuple[str, ...]


@dataclass
class Header:
    line: int                 # 0-based line index
    path: Path_               # decoded key path
    raw_parts: list[str]      # the dotted parts exactly as written (quotes kept)
    indent: str
    is_array: bool


@dataclass
class KeyValue:
    line: int                 # first line, 0-based
    end_line: int             # last line of a multi-line value
    table: Path_              # the header this statement sits under
    path: Path_               # decoded key (dotted keys give several parts)
    raw_key: str
    indent: str
    value_start: int          # offset of the value inside the document text
    value_end: int            # offset just past the value (before spaces and a comment)

    def full_path(self) -> Path_:
        return self.table + self.path


@dataclass
class Layout:
    text: str
    lines: list[str]          # with their line endings
    line_offsets: list[int]
    headers: list[Header] = field(default_factory=list)
    keyvalues: list[KeyValue] = field(default_factory=list)

    def first_line_under(self, prefix: Path_) -> int | None:
        """The 0-based first line that writes into the table at ``prefix`` or below, in any of TOML's spellings:
        a header, a dotted key under another header, or an inline table's key."""
        lines = [h.line for h in self.headers if h.path[:len(prefix)] == prefix] + \
            [kv.line for kv in self.keyvalues if kv.full_path()[:len(prefix)] == prefix]
        return min(lines) if lines else None

    def header_for(self, path: Path_) -> Header | None:
        for h in self.headers:
            if h.path == path and not h.is_array:
                return h
        return None

    def keyvalue(self, path: Path_) -> KeyValue | None:
        for kv in self.keyvalues:
            if kv.full_path() == path:
                return kv
        return None

    def body_end(self, header: Header) -> int:
        """Index of the last line that belongs to this header's own body (before the next header)."""
        following = [h.line for h in self.headers if h.line > header.line]
        nxt = min(following) if following else len(self.lines)
        return _last_content_line(self.lines, header.line, nxt)

    def subtree_end(self, header: Header) -> int:
        """Last content line of the header and the headers right after it that are its descendants."""
        last = header
        for h in sorted(self.headers, key=lambda h: h.line):
            if h.line <= header.line:
                continue
            if h.path[:len(header.path)] == header.path and len(h.path) > len(header.path):
                last = h
            else:
                break
        return self.body_end(last)

    def blank_lines_before(self, line: int) -> int:
        n = 0
        i = line - 1
        while i >= 0 and not self.lines[i].strip():
            n += 1
            i -= 1
        return n

    def value_text(self, kv: KeyValue) -> str:
        return self.text[kv.value_start:kv.value_end]

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a text offset."""
        import bisect
        i = bisect.bisect_right(self.line_offsets, offset) - 1
        return i + 1, offset - self.line_offsets[i] + 1


def _last_content_line(lines: list[str], start: int, stop: int) -> int:
    i = stop - 1
    while i > start and (not lines[i].strip() or lines[i].lstrip().startswith("#")):
        i -= 1
    return i


_BARE = re.compile(r"[A-Za-z0-9_-]+")
_BASIC_BODY = re.compile(r'(?:[^"\\\n]|\\[^\n])*')  # a one-line "..." string's body, escapes included
_LITERAL_BODY = re.compile(r"[^'\n]*")
_SIMPLE_QUOTED = re.compile(r'"[^"\\\x00-\x1f\x7f]*"|\'[^\'\x00-\x1f\x7f]*\'')


@functools.lru_cache(maxsize=4096)
def decode_key(raw: str) -> Path_:
    """Decode a dotted TOML key (``a."b.c".d``) into its parts, using tomllib itself as the authority.
    Keys made only of bare parts and quoted parts without escapes are split directly (a config of tens of
    thousands of lines has that many keys); anything else goes to tomllib."""
    parts = split_raw_key(raw)
    if all(_BARE.fullmatch(p) or _SIMPLE_QUOTED.fullmatch(p) for p in parts):
        return tuple(p[1:-1] if p[:1] in "\"'" else p for p in parts)
    data = tomllib.loads(f"{raw} = 0")
    parts = []
    while isinstance(data, dict):
        (k, data), = data.items()
        parts.append(k)
    return tuple(parts)


def split_raw_key(raw: str) -> list[str]:
    """Split a dotted key's text on the dots that are not inside quotes, keeping each part's quotes."""
    parts, cur, quote = [], [], None
    for ch in raw:
        if quote:
            cur.append(ch)
            if ch == quote and not (quote == '"' and _escaped(cur)):
                quote = None
        elif ch in "\"'":
            quote = ch
            cur.append(ch)
        elif ch == ".":
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur).strip())
    return parts


def _escaped(chars: list[str]) -> bool:
    n = 0
    i = len(chars) - 2
    while i >= 0 and chars[i] == "\\":
        n += 1
        i -= 1
    return n % 2 == 1


@functools.lru_cache(maxsize=8)
def scan(text: str) -> Layout:
    """The layout of a document. Cached by text (a run scans the same config many times, and a config can have
    tens of thousands of lines): treat the result as read-only."""
    lines = text.splitlines(keepends=True)
    offsets, pos = [], 0
    for line in lines:
        offsets.append(pos)
        pos += len(line)
    layout = Layout(text, lines, offsets or [0])
    s = _Scanner(text)
    table: Path_ = ()
    while not s.eof():
        s.skip_blank()
        if s.eof():
            break
        ch = s.peek()
        if ch in "\r\n":
            s.i += 1
            continue
        if ch == "#":
            s.skip_to_eol()
            continue
        line = s.line_of(s.i)
        indent = lines[line][: len(lines[line]) - len(lines[line].lstrip(" \t"))]
        if ch == "[":
            is_array = s.text.startswith("[[", s.i)
            s.i += 2 if is_array else 1
            start = s.i
            s.scan_key_until("]")
            raw = s.text[start:s.i].strip()
            s.i += 2 if is_array else 1
            s.skip_to_eol()
            path = decode_key(raw)
            layout.headers.append(Header(line, path, split_raw_key(raw), indent, is_array))
            table = path
            continue
        start = s.i
        s.scan_key_until("=")
        raw_key = s.text[start:s.i].strip()
        s.i += 1
        s.skip_blank()
        vstart = s.i
        s.scan_value()
        vend = s.i
        end_line = s.line_of(max(vstart, vend - 1))
        s.skip_to_eol()
        layout.keyvalues.append(KeyValue(line, end_line, table, decode_key(raw_key), raw_key, indent, vstart, vend))
    return layout


class _Scanner:
    def __init__(self, text: str):
        self.text = text
        self.i = 0
        self._nl = [m.start() for m in re.finditer("\n", text)]

    def eof(self) -> bool:
        return self.i >= len(self.text)

    def peek(self) -> str:
        return self.text[self.i]

    def line_of(self, offset: int) -> int:
        import bisect
        return bisect.bisect_left(self._nl, offset)

    def skip_blank(self) -> None:
        while not self.eof() and self.text[self.i] in " \t":
            self.i += 1

    def skip_to_eol(self) -> None:
        while not self.eof() and self.text[self.i] != "\n":
            self.i += 1
        if not self.eof():
            self.i += 1

    def scan_key_until(self, stop: str) -> None:
        while not self.eof() and self.text[self.i] != stop:
            if self.text[self.i] in "\"'":
                self.scan_string()
            elif self.text[self.i] == "\n":
                raise ValueError("unterminated key")
            else:
                self.i += 1

    def scan_string(self) -> None:
        t = self.text
        q = t[self.i]
        if t.startswith(q * 3, self.i):
            self.i += 3
            end = t.find(q * 3, self.i) if q == "'" else self._find_basic_end(q * 3)
            if end < 0:
                raise ValueError("unterminated multi-line string")
            self.i = end + 3
            while self.i < len(t) and t[self.i] == q:  # up to two quotes may end the content
                self.i += 1
            return
        m = (_BASIC_BODY if q == '"' else _LITERAL_BODY).match(t, self.i + 1)
        self.i = m.end()
        if self.i < len(t) and t[self.i] != q:
            raise ValueError("unterminated string")
        self.i += 1

    def _find_basic_end(self, delim: str) -> int:
        j = self.i
        while True:
            k = self.text.find(delim, j)
            if k < 0:
                return -1
            back = 0
            while self.text[k - 1 - back] == "\\":
                back += 1
            if back % 2 == 0:
                return k
            j = k + 1

    def scan_value(self) -> None:
        """Move past one value: a string, an array or inline table (nested, comments allowed in arrays), or a
        bare scalar. Stops before trailing spaces and any comment."""
        t = self.text
        if self.eof():
            return
        c = t[self.i]
        if c in "\"'":
            self.scan_string()
            return
        if c in "[{":
            depth = 0
            while not self.eof():
                c = t[self.i]
                if c in "\"'":
                    self.scan_string()
                    continue
                if c == "#":
                    while not self.eof() and t[self.i] != "\n":
                        self.i += 1
                    continue
                if c in "[{":
                    depth += 1
                elif c in "]}":
                    depth -= 1
                    if depth == 0:
                        self.i += 1
                        return
                self.i += 1
            raise ValueError("unterminated array or inline table")
        while not self.eof() and t[self.i] not in "#\r\n":
            self.i += 1
        while self.i > 0 and t[self.i - 1] in " \t":
            self.i -= 1
