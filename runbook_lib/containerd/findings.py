"""The containerd planners' findings: the one finding type (runbook_lib.findings.Problem) with a code, the values
for its fields, and the bilingual what/fix with the file and line. The planners raise it as FindingError (a
ConfigError, so a step that catches ConfigError already refuses before any write)."""

from __future__ import annotations

from ..errors import ConfigError
from ..findings import Problem
from ..messages import Msg


class Finding(Problem):
    """A Problem (the one finding type) built the way the containerd planners build theirs: code and values
    first. ``error()`` raises it as a FindingError, so a plan that meets it refuses before any write."""

    def __init__(self, code: str, values: dict | None = None, what: Msg = Msg("", ""), fix: Msg = Msg("", ""),
                 path: str | None = None, line: int | None = None):
        super().__init__(what, fix, path, line, code=code, values=dict(values or {}))

    def error(self) -> "FindingError":
        from .owner import OWNER_CODES, RuntimeOwnedElsewhere
        cls = RuntimeOwnedElsewhere if self.code in OWNER_CODES else FindingError
        err = cls(self.what, self.fix, path=self.path, line=self.line, code=self.code)
        err.finding = self
        return err


class FindingError(ConfigError):
    """A ConfigError that carries its Finding (``.finding``)."""
    finding: Finding
