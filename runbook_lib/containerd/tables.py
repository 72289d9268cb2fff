"""Reading and writing nested TOML tables by path: the one helper every module uses for `a.b.c` lookups."""

from __future__ import annotations

import copy


def get_in(data, path: tuple[str, ...]):
    """The value at ``path``, or None when any part is missing or not a table."""
    for part in path:
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data


def set_in(data: dict, path: tuple[str, ...], value) -> None:
    """Set ``path`` to a copy of ``value``, creating the tables on the way."""
    node = data
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = copy.deepcopy(value)
