"""Kubernetes name rules that the JSON schemas do not hold (only the API server enforces them).

A RuntimeClass `handler` must be a DNS-1123 label (the CRI handler name); its `metadata.name` must be a
DNS-1123 subdomain. The runbook uses the runtime name for both, so it must be a label, the stricter rule.
Also closest(): the known name a mistyped one nearly spells, for every "did you mean" of the runbook.
"""
from __future__ import annotations

import json
import re

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


def dns1123_label_problem(value: object) -> str | None:
    """None when `value` is a valid DNS-1123 label, else what is wrong and how to fix it (Korean, English)."""
    shown = quoted(value)
    if not isinstance(value, str):
        return (f"이름이 문자열이 아닙니다: {shown}. 따옴표로 감싼 이름을 쓰세요 (예: \"nvidia\").\n"
                f"The name {shown} is not a string. Write the name in quotes (for example \"nvidia\").")
    if value == "":
        return ("이름이 비어 있습니다. 1~63자의 이름을 쓰세요 (예: \"nvidia\").\n"
                "The name is empty. Give a name of 1 to 63 characters (for example \"nvidia\").")
    if len(value) > DNS1123_LABEL_MAX:
        return (f"이름이 {len(value)}자입니다: {shown}. DNS-1123 레이블은 최대 63자입니다.\n"
                f"The name {shown} is {len(value)} characters long; a DNS-1123 label has at most 63.")
    if not _LABEL.fullmatch(value):
        suggestion = re.sub(r"[^a-z0-9-]+", "-", value.lower()).strip("-") or "nvidia"
        return (f"DNS-1123 레이블이 아닌 이름입니다: {shown}. 영문 소문자, 숫자, '-' 만 쓸 수 있고 "
                f"처음과 끝은 영문 소문자나 숫자여야 합니다 (예: {quoted(suggestion)}).\n"
                f"The name {shown} is not a DNS-1123 label: use only lowercase letters, digits and '-', "
                f"starting and ending with a letter or digit (for example {quoted(suggestion)}).")
    return None
