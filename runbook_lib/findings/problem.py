"""The one finding type (Problem) and the bilingual catalog its words come from.

A finding is data: a code, where (file, line, column, or a JSON pointer), and the values it is about. What it
says (what is wrong, why it matters, the fix) comes from runbook_lib/data/findings.yaml, keyed by the code, so
an instructor rewords a message there without touching logic, and tests assert codes, not prose.

Errors raised deep in a parser (a TOML syntax error, a path that leaves the root) carry their own words; they
become a finding with their exception's code (``Problem.from_error``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from runbook_lib.findings.messages import Msg

ERROR, WARNING = "error", "warning"


@lru_cache(maxsize=1)
def catalog() -> dict[str, dict]:
    """code -> {"what": {ko, en}, "fix": {ko, en} | None, "why": {ko, en} | None}."""
    import yaml  # the project's own file: plain YAML, read once (fs.yamldoc is for files under the root)
    text = (resources.files("runbook_lib") / "data" / "findings.yaml").read_text(encoding="utf-8")
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


class _Values(dict):
    def __missing__(self, key: str) -> str:  # a template names a value the finding does not have: say so
        return f"<{key}>"


def _render(entry: dict | None, values: dict) -> Msg | None:
    if not entry:
        return None
    vals = _Values({k: ("" if v is None else v) for k, v in values.items()})
    return Msg(entry["ko"].format_map(vals).strip(), entry["en"].format_map(vals).strip())


def words(code: str, **values) -> tuple[Msg, Msg | None, Msg | None]:
    """(what, fix, why) of a code, rendered: for an error raised deep in a parser, so that its words come from
    the same catalog as every finding's."""
    entry = catalog().get(code)
    if entry is None:
        raise KeyError(f"finding code not in runbook_lib/data/findings.yaml: {code}")
    return _render(entry["what"], values), _render(entry.get("fix"), values), _render(entry.get("why"), values)


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
        entry = catalog().get(code)
        if entry is None:
            raise KeyError(f"finding code not in runbook_lib/data/findings.yaml: {code}")
        return cls(_render(entry["what"], values), _render(entry.get("fix"), values), path, line,
                   _render(entry.get("why"), values), col, excerpt, code, dict(values), pointer,
                   severity or entry.get("severity", ERROR))

    @classmethod
    def from_error(cls, exc) -> "Problem":
        """A RunbookError as a verdict, keeping its position, excerpt and code."""
        return cls(exc.what, exc.fix, exc.path, exc.line, col=exc.col, excerpt=exc.excerpt,
                   code=getattr(exc, "code", "error"))

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def as_dict(self) -> dict:
        return {"code": self.code, "severity": self.severity, "what": self.what.as_dict(),
                "fix": self.fix.as_dict() if self.fix else None, "why": self.why.as_dict() if self.why else None,
                "path": self.path, "line": self.line, "col": self.col, "pointer": self.pointer,
                "excerpt": self.excerpt, "values": {k: _plain(v) for k, v in self.values.items()}}

    def error(self):
        """This finding raised, as a cell's error (what a cell's code does when it cannot go on)."""
        from runbook_lib.findings.errors import RunbookError
        return RunbookError(self.what, self.fix, code=self.code)

    def lines(self, mark: str = "") -> list[str]:
        """What, then the fix, a Korean line before each English one, for a cell's text; after a mark (`✗ `) the
        lines that follow it are indented under it."""
        pad = "  " if mark else ""
        out = [f"{mark}{self.what.ko}", f"{pad}{self.what.en}"]
        if self.fix:
            out += [f"{pad}고치기: {self.fix.ko}", f"{pad}fix: {self.fix.en}"]
        return out

    def where(self) -> str:
        if not (self.path and self.line):
            return self.path or ""
        return f"{self.path}:{self.line}" + (f":{self.col}" if self.col else "")

    def same(self, other: "Problem") -> bool:
        return (self.code, self.path, self.line, self.what) == (other.code, other.path, other.line, other.what)


def _plain(v):
    return v if isinstance(v, (str, int, float, bool, type(None))) else str(v)


def unique(problems: list[Problem]) -> list[Problem]:
    out: list[Problem] = []
    for p in problems:
        if not any(p.same(q) for q in out):
            out.append(p)
    return out
