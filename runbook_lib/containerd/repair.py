"""Move a runtime table that sits where containerd does not look (an unquoted dotted header, another config
version's path, `...cri".runtimes.<name>` without `.containerd`) to the right path, when its content is clear.

"Clear" means: exactly one such table, in the file that owns the runtimes, nothing at the right path yet, only
keys containerd knows. Anything else would be a guess, so no move is offered and step 2 stops with the verdict.
Like edit.py, the result is accepted only if tomllib reads it as the original data with the stray table gone
and the same table at the right path; a text the scanner misread can only cancel the move, never be written.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from runbook_lib.findings.errors import ConfigError
from runbook_lib.findings.messages import Msg
from runbook_lib.findings.catalog import say
from runbook_lib.containerd import releases
from runbook_lib.containerd.diagnose import header_text, owner_file, stray_runtime_tables
from runbook_lib.containerd.edit import OPTIONS, RuntimeWanted, plan_runtime
from runbook_lib.containerd.effective import Effective
from runbook_lib.containerd.layout import Layout, scan
from runbook_lib.containerd.load import reads_as
from runbook_lib.containerd.versions import runtime_path
from runbook_lib.containerd.tables import get_in


@dataclass
class Moved:
    lab_path: str
    text: str                                   # the file's new text ('\n' line endings)
    notes: list[Msg] = field(default_factory=list)


def move_stray_runtime(eff: Effective, name: str) -> Moved | None:
    """The owner file's text with the stray table moved to the right path, or None when that would be a guess."""
    strays = stray_runtime_tables(eff, name)
    right = runtime_path(eff.version, name)
    if len(strays) != 1 or get_in(eff.data, right) is not None:
        return None
    path, lab_path, line = strays[0]
    owner = owner_file(eff, name)
    if owner.lab_path != lab_path:
        return None
    content = get_in(owner.data, path)
    if not _clear(content):
        return None
    layout = scan(owner.text)
    shown = layout.lines[line - 1].strip()
    text = _delete_tables(layout, path)
    data = _without(owner.data, path, {h.path for h in layout.headers})
    if not reads_as(text, data):
        return None
    try:
        plan = plan_runtime(text, data, eff.version, RuntimeWanted(name, "", False), copy.deepcopy(content),
                            lab_path=lab_path)
    except ConfigError:
        return None
    head = header_text(eff, right)
    return Moved(lab_path, plan.text, [say("repair.table_moved_where_containerd_looks", line_no=line, shown=shown, head=head)])


def _clear(content) -> bool:
    if not isinstance(content, dict) or not set(content) <= releases.all_runtime_keys():
        return False
    options = content.get(OPTIONS, {})
    return isinstance(options, dict) and not any(isinstance(v, dict) for v in options.values())


def _delete_tables(layout: Layout, path: tuple[str, ...]) -> str:
    """Delete the table's header and body, its sub-tables', and the blank lines right before each."""
    gone: set[int] = set()
    for h in layout.headers:
        if h.path[:len(path)] == path:
            gone.update(range(h.line, layout.body_end(h) + 1))
            i = h.line - 1
            while i >= 0 and not layout.lines[i].strip():
                gone.add(i)
                i -= 1
    return "".join(line for i, line in enumerate(layout.lines) if i not in gone)


def _without(data: dict, path: tuple[str, ...], headers: set) -> dict:
    """The data without the table, and without the parents it alone created (no header of their own)."""
    out = copy.deepcopy(data)
    chain = [out]
    for p in path[:-1]:
        chain.append(chain[-1][p])
    del chain[-1][path[-1]]
    for depth in range(len(path) - 1, 0, -1):
        if chain[depth] or path[:depth] in headers:
            break
        del chain[depth - 1][path[depth - 1]]
    return out

