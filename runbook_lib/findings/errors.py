"""One base exception; each carries a bilingual message, where it happened and how to fix it.

Domain errors also subclass the built-in they refine (ValueError, OSError, ...) so callers that know nothing
of the runbook still catch them sensibly.
"""

from __future__ import annotations

from runbook_lib.findings.messages import Msg


class RunbookError(Exception):
    """A problem the user can fix. ``what`` says what is wrong, ``fix`` says how to fix it; ``code`` names it
    for machines (a finding's code, see runbook_lib/findings/problem.py)."""

    code = "error"

    def __init__(self, what: Msg, fix: Msg | None = None, *, path: str | None = None,
                 line: int | None = None, col: int | None = None, excerpt: str | None = None,
                 code: str | None = None):
        self.what = what
        self.code = code or self.code
        self.fix = fix
        self.path = path
        self.line = line
        self.col = col
        self.excerpt = excerpt
        super().__init__(self.render())

    def where(self) -> str:
        if not self.path:
            return ""
        if self.line is None:
            return self.path
        return f"{self.path}:{self.line}" + (f":{self.col}" if self.col is not None else "")

    def _render_traceback_(self) -> list[str]:
        """In a notebook cell, IPython shows these lines instead of a Python traceback: what is wrong, where and
        the fix, in both languages (papermill still records the error, so the run exits non-zero)."""
        return self.render().split("\n")

    def render(self) -> str:
        parts = []
        where = self.where()
        if where:
            parts.append(f"[{where}]")
        parts.append(self.what.ko)
        if self.fix:
            parts.append(f"(고치려면: {self.fix.ko})")
        if self.excerpt:
            parts.append(self.excerpt)
        parts.append(self.what.en)
        if self.fix:
            parts.append(f"(to fix this: {self.fix.en})")
        return "\n".join(parts)

    def as_dict(self) -> dict:
        return {
            "what": self.what.as_dict(),
            "fix": self.fix.as_dict() if self.fix else None,
            "path": self.path, "line": self.line, "col": self.col, "code": self.code,
        }


class ParameterError(RunbookError, ValueError):
    """A notebook parameter has the wrong type or value."""
    code = "parameter.invalid"


class ConfigError(RunbookError, ValueError):
    """A file under the root cannot be read as what it should be (TOML, YAML, CDI, RuntimeClass)."""
    code = "config.unreadable"


class ConfinementError(RunbookError, PermissionError):
    """A path would leave the target root (through '..' or a symlink)."""
    code = "path.outside_root"


class WriteError(RunbookError, OSError):
    """A file could not be written safely; nothing was changed."""
    code = "write.failed"


class LockTimeout(RunbookError, TimeoutError):
    """Another run holds the root's lock for too long."""
    code = "lock.timeout"
