"""Read TOML from a root within a bound on nesting, as runbook_lib/fs/yamldoc.py reads YAML.

tomllib parses arrays and inline tables by recursion, so a 50,000-deep `deep = [[[...]]]` in a student's
config.toml is a RecursionError, not a TOMLDecodeError. Every reader of a root's TOML calls ``loads`` here.
"""

from __future__ import annotations

import functools
import re
import tomllib

# containerd's configs are at most four levels deep.
MAX_DEPTH = 100
# What opens or closes a nesting, and what hides brackets from it: strings (multi-line first) and comments.
_TOKENS = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^\']|\'(?!\'\'))*\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}]')


class TooDeep(tomllib.TOMLDecodeError):
    """Nested beyond MAX_DEPTH; a TOMLDecodeError, so every reader that gives up on broken TOML gives up on it."""

    def __init__(self, line: int, col: int):
        super().__init__(f"nested more than {MAX_DEPTH} deep (at line {line}, column {col})")
        self.line, self.col = line, col


def check_depth(text: str) -> None:
    depth = 0
    for m in _TOKENS.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                line = text.count("\n", 0, m.start()) + 1
                raise TooDeep(line, m.start() - text.rfind("\n", 0, m.start()))
        elif c in "]}":
            depth = max(0, depth - 1)


def loads(text: str) -> dict:
    """tomllib.loads within MAX_DEPTH: what every reader of a root's TOML calls. A run reads the same two or
    three texts again and again (the plan of every step, each check cell, the planned state's judging: ~20
    parses of 2-3 texts), so each text is parsed once and every caller gets a copy of its own to change."""
    return copy_data(_parsed(text))


@functools.lru_cache(maxsize=8)
def _parsed(text: str) -> dict:
    check_depth(text)
    return tomllib.loads(text)


def copy_data(value):
    """A copy of what tomllib returned: its tables and arrays new, its values (str, int, float, bool, the
    date and time types) shared, since none of them can be changed in place."""
    if isinstance(value, dict):
        return {k: copy_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_data(v) for v in value]
    return value
