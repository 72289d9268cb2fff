"""Render TOML fragments (keys, values, headers) in the style of the file they go into, using tomlkit."""

from __future__ import annotations

import re

import tomlkit

BARE = re.compile(r"[A-Za-z0-9_-]+")


def key(name: str, quote: str = '"') -> str:
    if BARE.fullmatch(name):
        return name
    if quote == "'" and "'" not in name and "\n" not in name:
        return f"'{name}'"
    return tomlkit.key(name).as_string()


def value(v, *, literal: bool = False) -> str:
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
