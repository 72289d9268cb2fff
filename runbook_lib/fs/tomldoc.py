"""Read TOML from a root within a bound on nesting, as runbook_lib/fs/yamldoc.py reads YAML.

tomllib parses arrays and inline tables by recursion, so a 50,000-deep `deep = [[[...]]]` in a student's
config.toml is a RecursionError, not a TOMLDecodeError. Every reader of a root's TOML calls ``loads`` here.
"""

from __future__ import annotations

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
    """tomllib.loads within MAX_DEPTH: what every reader of a root's TOML calls."""
    check_depth(text)
    return tomllib.loads(text)
