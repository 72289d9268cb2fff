"""The one rule for labels: the name a run, a student or a host goes by in an archive, a grading and a summary.

1. A root's label is the last part of its path (`/srv/class/kim` → `kim`); for `/` (a real node) it is the host
   name. `--label P` puts `P-` in front (`P-kim`); with a single root, `--label` is the label itself.
2. Roots that would share a label get their parent folders' names put in front, one folder at a time, until
   they differ: `/srv/a/kim` and `/srv/b/kim` → `a-kim` and `b-kim`. The same path on two hosts (a summary
   of archives from many hosts) goes up to the host name: `node1-srv-kim`, `node2-srv-kim`.
3. A label still shared after that (only possible with odd folder names such as `a-kim` beside `a/kim`) gets
   `-2`, `-3` … in the order the roots were given.

`runbook run`, `runbook grade`, the class notebook and `runbook summary` all call `assign`, so the same roots
always get the same labels, and two different roots never share one.
"""

from __future__ import annotations
from runbook_lib.findings.catalog import say

import os
import socket
from collections import Counter
from pathlib import PurePosixPath

JOIN = "-"


def identity(root: str, host: str | None = None) -> tuple[str, ...]:
    """What tells one root from another: the host, then the folders of the root's absolute path."""
    parts = PurePosixPath(os.path.abspath(root)).parts[1:]
    return (host or socket.gethostname(), *parts)


def assign(identities: list[tuple[str, ...]], prefix: str | None = None, *, single: bool = False) -> list[str]:
    """One label per identity (see the module's rule); equal identities get equal labels."""
    if single and prefix and len(identities) == 1:
        return [prefix]
    distinct = list(dict.fromkeys(identities))
    depth = {ident: 1 for ident in distinct}

    def name(ident: tuple[str, ...]) -> str:
        return JOIN.join(ident[-depth[ident]:])

    while True:
        counts = Counter(name(i) for i in distinct)
        grow = [i for i in distinct if counts[name(i)] > 1 and depth[i] < len(i)]
        if not grow:
            break
        for ident in grow:
            depth[ident] += 1
    chosen: dict[tuple[str, ...], str] = {}
    used: Counter = Counter()
    for ident in distinct:
        base = name(ident)
        used[base] += 1
        label = base if used[base] == 1 else f"{base}{JOIN}{used[base]}"
        while label in chosen.values():  # a suffixed label that is another root's own
            used[base] += 1
            label = f"{base}{JOIN}{used[base]}"
        chosen[ident] = label
    return [f"{prefix}{JOIN}{chosen[i]}" if prefix else chosen[i] for i in identities]


def for_roots(roots: list[str], prefix: str | None = None) -> list[str]:
    """Labels for roots on this machine (`runbook run`, `runbook grade`, the class notebook)."""
    return assign([identity(r) for r in roots], prefix, single=True)


def problem(label: str) -> str | None:
    """Why a label cannot name a folder (bilingual), or None."""
    if not label or "/" in label or label.startswith(".") or "\x00" in label:
        return (str(say("labels.label_cannot_empty_contain", label=label)))
    return None


def typed_problem(label: str) -> str | None:
    """problem(), and for a label a person typed (`--label`) also a space at either end or a control character:
    a folder named " " or "kim " cannot be told from another in a listing, nor typed back in a shell. A label
    taken from a student's own folder name is that folder's, odd or not (problem() only)."""
    if why := problem(label):
        return why
    if label != label.strip() or any(ord(c) < 0x20 or ord(c) == 0x7f for c in label):
        return (str(say("labels.label_begins_ends_space", label=label)))
    return None
