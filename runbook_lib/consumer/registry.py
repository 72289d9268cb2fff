"""Every consumer the runbook can configure, one line each (as papermill's engines or nvidia-ctk's ``case``): a
name, and where its implementation of runbook_lib/consumer/protocol.py is, imported only when a run asks for it.
"""

from __future__ import annotations

import importlib

from runbook_lib.consumer.protocol import Consumer

DEFAULT = "containerd"

CONSUMERS: dict[str, str] = {
    "containerd": "runbook_lib.containerd.consumer:Containerd",
}

_loaded: dict[str, Consumer] = {}


def load(name: str = DEFAULT) -> Consumer:
    """The consumer registered under ``name`` (one instance per name: it keeps no state of a run)."""
    if name not in _loaded:
        module, _, attr = CONSUMERS[name].partition(":")
        _loaded[name] = getattr(importlib.import_module(module), attr)()
    return _loaded[name]


def register(name: str, where: str) -> None:
    """Add a consumer (``"package.module:Class"``) under ``name``: a test's toy, or a new runtime's line."""
    CONSUMERS[name] = where
    _loaded.pop(name, None)
