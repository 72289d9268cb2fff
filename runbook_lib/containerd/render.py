"""Render TOML fragments (keys, values, headers) in the style of the file they go into, using tomlkit.

The values a run renders are nearly always booleans, integers and plain ASCII strings, whose TOML form is
written directly here (byte-for-byte what tomlkit gives, tests/test_render.py checks it); tomlkit is imported
only for anything else, so a kernel running the notebook usually never pays for importing it."""

from __future__ import annotations

import re

BARE = re.compile(r"[A-Za-z0-9_-]+")
# printable ASCII with nothing to escape: a basic string is just the text in double quotes
PLAIN = re.compile(r'[ !#-\[\]-~]*')


def key(name: str, quote: str = '"') -> str:
    if BARE.fullmatch(name):
        return name
    if quote == "'" and "'" not in name and "\n" not in name:
        return f"'{name}'"
    if PLAIN.fullmatch(name):
        return f'"{name}"'
    import tomlkit

    return tomlkit.key(name).as_string()


def value(v, *, literal: bool = False) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if type(v) is int:
        return str(v)
    if type(v) is str and PLAIN.fullmatch(v):
        return f"'{v}'" if literal and "'" not in v else f'"{v}"'
    return tomlkit_value(v, literal=literal)


def tomlkit_value(v, *, literal: bool = False) -> str:
    """The value as tomlkit writes it: the reference the fast path above must match (tests/test_render.py)."""
    import tomlkit

    if isinstance(v, str):
        if literal and "'" not in v and "\n" not in v:
            return tomlkit.string(v, literal=True).as_string()
        return tomlkit.string(v).as_string()
    if isinstance(v, dict):
        t = tomlkit.inline_table()
        t.update(v)
        return t.as_string()
    return tomlkit.item(v).as_string()


def header(parts: list[str], *, array: bool = False) -> str:
    inner = ".".join(parts)
    return f"[[{inner}]]" if array else f"[{inner}]"


def quote_style(text: str) -> str:
    """The quote the file uses for quoted keys: containerd 2.0's docs use single quotes, 1.x double."""
    singles = len(re.findall(r"\[[^\]\n]*'", text))
    doubles = len(re.findall(r'\[[^\]\n]*"', text))
    return "'" if singles > doubles else '"'
