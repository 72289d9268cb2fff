"""The one finding type (Problem).

A finding is data: a code, where (file, line, column, or a JSON pointer), and the values it is about. What it
says (what is wrong, why it matters, the fix) comes from runbook_lib/data/findings.yaml, keyed by the code
(runbook_lib/findings/catalog.py), so an instructor rewords a message there without touching logic, and tests
assert codes, not prose.

An error raised deep in a parser (a TOML syntax error, a path that leaves the root) carries its finding
(runbook_lib/findings/errors.py); ``Problem.from_error`` gives back exactly that finding.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from runbook_lib.findings.catalog import catalog, entry, render, say, words  # noqa: F401 - the catalog's API, here too
from runbook_lib.findings.messages import Msg

ERROR, WARNING = "error", "warning"


@dataclass
class Problem:
    """A verdict: what is wrong, where, why it matters, and the exact fix; ``code`` keys its words."""
    what: Msg
    fix: Msg | None = None
    path: str | None = None
    line: int | None = None
    why: Msg | None = None
    col: int | None = None
    excerpt: str | None = None  # the offending line(s) as written, with a caret under the column
    code: str = "error"
    values: dict = field(default_factory=dict)
    pointer: str | None = None  # a JSON pointer (CDI, RuntimeClass) or the TOML key path, when there is one
    severity: str = ERROR

    @classmethod
    def of(cls, code: str, path: str | None = None, line: int | None = None, *, col: int | None = None,
           pointer: str | None = None, excerpt: str | None = None, severity: str | None = None, **values) -> "Problem":
        """A finding whose words come from the catalog."""
        found = entry(code)
        return cls(render(found["what"], values), render(found.get("fix"), values), path, line,
                   render(found.get("why"), values), col, excerpt, code, dict(values), pointer,
                   severity or found.get("severity", ERROR))

    @classmethod
    def from_error(cls, exc) -> "Problem":
        """The finding a RunbookError carries: every field of it, as it was raised."""
        return dataclasses.replace(exc.problem, values=dict(exc.problem.values))

    def is_a(self, family: str) -> bool:
        """This finding's code is ``family`` or one of its own (write.failed.not_enough_disk_space is a
        write.failed): what an error class raises is its family, the catalog's code says which."""
        return self.code == family or self.code.startswith(family + ".")

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def as_dict(self) -> dict:
        return {"code": self.code, "severity": self.severity, "what": self.what.as_dict(),
                "fix": self.fix.as_dict() if self.fix else None, "why": self.why.as_dict() if self.why else None,
                "path": self.path, "line": self.line, "col": self.col, "pointer": self.pointer,
                "excerpt": self.excerpt, "values": {k: _plain(v) for k, v in self.values.items()}}

    def where(self) -> str:
        if not (self.path and self.line):
            return self.path or ""
        return f"{self.path}:{self.line}" + (f":{self.col}" if self.col else "")

    def same(self, other: "Problem") -> bool:
        return (self.code, self.path, self.line, self.what) == (other.code, other.path, other.line, other.what)


def _plain(v):
    if isinstance(v, Msg):
        return v.as_dict()
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v if isinstance(v, (str, int, float, bool, type(None))) else str(v)


def unique(problems: list[Problem]) -> list[Problem]:
    out: list[Problem] = []
    for p in problems:
        if not any(p.same(q) for q in out):
            out.append(p)
    return out
