"""Text edits the planners share: values replaced by their spans, and lines to insert between. Every planner
checks its result with tomllib afterwards (load.require_reads_as); these only keep the bytes around an edit."""

from __future__ import annotations


def replace_spans(text: str, patches: list[tuple[int, int, str]]) -> str:
    """Each (start, end, new) replaces text[start:end]; the last first, so earlier offsets stay right."""
    for start, end, new in sorted(patches, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def lines_of(text_or_lines: str | list[str]) -> list[str]:
    """The lines, each with its newline, the last one's added if the file lacked it: ready for inserts."""
    lines = text_or_lines.splitlines(keepends=True) if isinstance(text_or_lines, str) else list(text_or_lines)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    return lines


def keep_last_line(old: str, new: str, untouched: bool) -> str:
    """A file whose last line has no newline keeps it so when the insert is above it (lines_of gave it one to
    insert after): apply changes no byte it does not have to, and remove can give the file back as it was."""
    return new[:-1] if untouched and old and not old.endswith("\n") and new.endswith("\n") else new
