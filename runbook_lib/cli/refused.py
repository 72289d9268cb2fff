"""The `runbook` command's refusal, in a module of its own: `python -m runbook_lib.cli` runs its
`__main__`, so a class defined there would not be the one the sub-command modules import and raise."""

from __future__ import annotations

EXIT_OK, EXIT_FAILED, EXIT_REFUSED = 0, 1, 2


class Refused(Exception):
    """A request refused before anything ran; the text is already bilingual."""
