"""The one comparison rule for the toolkit files a student writes (default.txt, parsed.txt, cdi-keys.txt,
report.txt): what may be written differently and still be right. The step's verdict and the notebook's check
cell (runbook_lib/steps/expect.py) both compare with it, and docs/GRADING.md says it in words:

- the final newline may be missing;
- a list value (parsed.txt's ``RUNTIMES``) may hold its names in any order, with spaces after the commas;
- a file that is a list of names (cdi-keys.txt) may hold them in any order.

Everything else is as the lab writes it: one ``KEY=value`` a line, in the lab's order, no quotes, no spaces
around ``=`` or at a line's end, ``\\n`` line endings (a ``\\r\\n`` file is said so), TOML's lowercase booleans.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    lists: tuple[str, ...] = ()   # the keys whose value is a comma-separated list of names, in any order
    unordered: bool = False       # the whole file is a list of names, one a line, in any order


EXACT = Rule()


def names(value: str) -> list[str]:
    """A list value as a student may write it: `runc,nvidia`, `nvidia, runc`."""
    return sorted(n.strip() for n in value.split(",")) if value.strip() else []


def value_matches(rule: Rule, key: str, got: str | None, expected: str | None) -> bool:
    """One line's value, by the rule: a list key compares its names as a set, every other value exactly."""
    if got is None or expected is None:
        return got is expected
    if key in rule.lists:
        return names(got) == names(expected)
    return got == expected


def _lines(text: str) -> list[str]:
    return (text[:-1] if text.endswith("\n") else text).split("\n") if text else []


def canonical(rule: Rule, text: str) -> list[str]:
    """The lines of a file as the rule compares them (no final newline, lists and unordered files sorted)."""
    out = []
    for line in _lines(text):
        key, eq, value = line.partition("=")
        out.append(f"{key}={','.join(names(value))}" if eq and key in rule.lists else line)
    return sorted(out) if rule.unordered else out


def same(rule: Rule, got: str | None, expected: str) -> bool:
    return got is not None and canonical(rule, got) == canonical(rule, expected)


def extra_lines(rule: Rule, got: str, expected: str) -> list[int]:
    """The numbers of the lines that, deleted, leave ``got`` the rule's match for ``expected`` (a comment, a blank
    line or a line of the student's own among the lab's lines, all of which are there and in the lab's order), or
    [] when deleting lines is not enough. The line is then said as one to delete, not every line after it as wrong."""
    rows, want = _rows(rule, got), _rows(rule, expected)
    return _left_over(rule, rows, want) if len(rows) > len(want) else []


def missing_lines(rule: Rule, got: str, expected: str) -> list[int]:
    """The numbers, in ``expected``, of its lines that ``got`` lacks when every line ``got`` holds is one of them in
    its order; [] when adding lines is not enough. The line is then said as missing, not every line after it."""
    rows, want = _rows(rule, got), _rows(rule, expected)
    return _left_over(rule, want, rows) if 0 < len(rows) < len(want) else []


def _rows(rule: Rule, text: str) -> list[str]:
    """Each line of a file as the rule compares it, in the file's order."""
    return [canonical(rule, line + "\n")[0] for line in _lines(text)]


def _left_over(rule: Rule, longer: list[str], shorter: list[str]) -> list[int]:
    """The numbers of the lines of ``longer`` left over once each line of ``shorter`` is found in it, in order (in
    any order for a file of names), or [] when one is not there."""
    over, j, left = [], 0, list(shorter)
    for n, row in enumerate(longer, 1):
        if rule.unordered and row in left:
            left.remove(row)
        elif not rule.unordered and j < len(shorter) and row == shorter[j]:
            j += 1
        else:
            over.append(n)
    return over if len(longer) - len(over) == len(shorter) else []


def value_of(text: str | None, key: str) -> str | None:
    """The value of the line `KEY=...` (the first one), or None."""
    for line in _lines(text or ""):
        k, eq, v = line.partition("=")
        if eq and k == key:
            return v
    return None


def derivable(text: str) -> bool:
    """Lines a fix may show: no empty value and no quoted one (what a broken input gives: `SYSTEMD_CGROUP="true"`,
    `RUNTIME_TYPE=`). A fix is computed from the corrected inputs; when even those leave a value unknown, the
    lines are omitted instead."""
    for line in _lines(text):
        _, eq, v = line.partition("=")
        if eq and (not v or v[:1] in "\"'"):
            return False
    return True
