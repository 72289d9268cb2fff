"""A structured verdict the library hands to the step layer: a code for the message catalog, the values for
its fields, and the bilingual what/fix with the file and line. The planners raise it as FindingError (a
ConfigError, so a step that catches ConfigError already refuses before any write)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import ConfigError
from ..messages import Msg


@dataclass
class Finding:
    code: str
    values: dict = field(default_factory=dict)
    what: Msg = Msg("", "")
    fix: Msg = Msg("", "")
    path: str | None = None
    line: int | None = None

    def error(self) -> "FindingError":
        from .owner import OWNER_CODES, RuntimeOwnedElsewhere
        cls = RuntimeOwnedElsewhere if self.code in OWNER_CODES else FindingError
        err = cls(self.what, self.fix, path=self.path, line=self.line)
        err.finding = self
        return err


class FindingError(ConfigError):
    """A ConfigError that carries its Finding (``.finding``)."""
    finding: Finding
