"""Render TOML fragments (keys, values, headers) in the style of the file they go into, using tomlkit.

Values are tomlkit's text. An earlier hand-written fast path for plain values saved the one tomlkit import
per kernel (about 45 ms, docs/BENCHMARKS.md), too little to keep a second TOML writer for."""

from __future__ import annotations

import re

import tomlkit

from runbook_lib.fs.tomlvalue import value  # noqa: F401 - a value as tomlkit writes it, below the domains

BARE = re.compile(r"[A-Za-z0-9_-]+")


def key(name: str, quote: str = '"') -> str:
    """A key as the file writes its keys: bare when it can be, else in the file's quote style."""
    if BARE.fullmatch(name):
        return name
    if quote == "'" and "'" not in name and "\n" not in name:
        return f"'{name}'"  # containerd 2.0's docs quote keys with single quotes; tomlkit only writes double
    return tomlkit.key(name).as_string()


def header(parts: list[str], *, array: bool = False) -> str:
    inner = ".".join(parts)
    return f"[[{inner}]]" if array else f"[{inner}]"


def quote_style(text: str) -> str:
    """The quote the file uses for quoted keys: containerd 2.0's docs use single quotes, 1.x double."""
    singles = len(re.findall(r"\[[^\]\n]*'", text))
    doubles = len(re.findall(r'\[[^\]\n]*"', text))
    return "'" if singles > doubles else '"'
