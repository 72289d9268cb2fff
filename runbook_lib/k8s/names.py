"""Kubernetes name rules that the JSON schemas do not hold (only the API server enforces them).

A RuntimeClass `handler` must be a DNS-1123 label (the CRI handler name); its `metadata.name` must be a
DNS-1123 subdomain. The runbook uses the runtime name for both, so it must be a label, the stricter rule.
Also closest(): the known name a mistyped one nearly spells, for every "did you mean" of the runbook.
"""
from __future__ import annotations

import json
import re

from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import Msg

DNS1123_LABEL_MAX = 63
_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


def closest(name: str, known, cutoff: float = 0.75, *, fold_case: bool = False) -> str | None:
    """The known name ``name`` nearly spells (difflib's ratio at least ``cutoff``), or None. With ``fold_case``
    the spelling is compared in lower case and the known name returned as it is written."""
    import difflib
    spelled = {(k.lower() if fold_case else k): k for k in known}
    m = difflib.get_close_matches(name.lower() if fold_case else name, sorted(spelled), n=1, cutoff=cutoff)
    return spelled[m[0]] if m else None


def quoted(value: object) -> str:
    """A value as it would be written in a parameter file: a string in double quotes with its control
    characters escaped (a newline stays visible and never breaks the message's lines), a number as it is."""
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else str(value)


def dns1123_label_problem(value: object) -> Msg | None:
    """None when `value` is a valid DNS-1123 label, else what is wrong and how to fix it."""
    shown = quoted(value)
    if not isinstance(value, str):
        return say("names.not_a_string", shown=shown)
    if value == "":
        return say("names.empty")
    if len(value) > DNS1123_LABEL_MAX:
        return say("names.too_long", shown=shown, count=len(value), most=DNS1123_LABEL_MAX)
    if not _LABEL.fullmatch(value):
        suggestion = re.sub(r"[^a-z0-9-]+", "-", value.lower()).strip("-") or "nvidia"
        return say("names.not_a_label", shown=shown, suggestion=quoted(suggestion))
    return None
