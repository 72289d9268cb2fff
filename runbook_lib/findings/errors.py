"""One base exception; each carries its finding (a Problem): what is wrong, where it happened and how to fix it.

Domain errors also subclass the built-in they refine (ValueError, OSError, ...) so callers that know nothing
of the runbook still catch them sensibly. ``Problem.from_error`` gives back the finding an error was raised
with, every field of it.
"""

from __future__ import annotations

from runbook_lib.findings.messages import Msg
from runbook_lib.findings.problem import Problem
from runbook_lib.findings.text import error_text


def _field(name: str):
    return property(lambda self: getattr(self.problem, name), doc=f"the finding's {name}")


class RunbookError(Exception):
    """A problem the user can fix, carried as its finding (``problem``); ``default_code`` names the finding of
    an error raised with words of its own."""

    default_code = "error"

    def __init__(self, what: Msg | Problem, fix: Msg | None = None, *, path: str | None = None,
                 line: int | None = None, col: int | None = None, excerpt: str | None = None,
                 code: str | None = None, why: Msg | None = None, pointer: str | None = None):
        self.problem = what if isinstance(what, Problem) else Problem(
            what, fix, path, line, why, col, excerpt, code or self.default_code, pointer=pointer)
        super().__init__(self.render())

    @classmethod
    def of(cls, code: str, path: str | None = None, line: int | None = None, **values) -> "RunbookError":
        """This error, carrying the catalog's finding ``code`` (see Problem.of)."""
        return cls(Problem.of(code, path, line, **values))

    what, fix, why, path, line, col = (_field(n) for n in ("what", "fix", "why", "path", "line", "col"))
    excerpt, code, values, pointer, severity = (_field(n) for n in ("excerpt", "code", "values", "pointer", "severity"))
    finding = property(lambda self: self.problem, doc="the finding this error carries")

    def where(self) -> str:
        return self.problem.where()

    def _render_traceback_(self) -> list[str]:
        """In a notebook cell, IPython shows these lines instead of a Python traceback: what is wrong, where and
        the fix, in both languages (papermill still records the error, so the run exits non-zero)."""
        return self.render().split("\n")

    def render(self) -> str:
        return error_text(self.problem)

    def as_dict(self) -> dict:
        return self.problem.as_dict()


class ParameterError(RunbookError, ValueError):
    """A notebook parameter has the wrong type or value."""
    default_code = "parameter.invalid"


class ConfigError(RunbookError, ValueError):
    """A file under the root cannot be read as what it should be (TOML, YAML, CDI, RuntimeClass)."""
    default_code = "config.unreadable"


class ConfinementError(RunbookError, PermissionError):
    """A path would leave the target root (through '..' or a symlink)."""
    default_code = "path.outside_root"


class ReadError(RunbookError, OSError):
    """A file under the root could not be read (EACCES, EIO, ...): the kernel's answer, said for the file; still an
    OSError, so a caller that skips a file it cannot read (a neighbour's CDI spec) skips it as before."""
    default_code = "read.failed"


class WriteError(RunbookError, OSError):
    """A file could not be written safely; nothing was changed."""
    default_code = "write.failed"


class LockTimeout(RunbookError, TimeoutError):
    """Another run holds the root's lock for too long."""
    default_code = "lock.timeout"
