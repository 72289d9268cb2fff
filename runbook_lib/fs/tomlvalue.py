"""A TOML value as tomlkit writes it: the config edits (containerd/render.py), the toolkit files and every view
of a value a person reads (a boolean stays `true`, a string shows its quotes) use the one writer."""

from __future__ import annotations

import tomlkit


def value(v, *, literal: bool = False) -> str:
    """The value as tomlkit writes it; with ``literal``, a string in single quotes when it can be one."""
    if isinstance(v, str):
        if literal:
            try:
                return tomlkit.string(v, literal=True).as_string()
            except tomlkit.exceptions.InvalidStringError:
                pass  # a quote or control character a literal string cannot hold: a basic string can
        return tomlkit.string(v).as_string()
    if isinstance(v, dict):
        t = tomlkit.inline_table()
        t.update(v)
        return t.as_string()
    return tomlkit.item(v).as_string()
