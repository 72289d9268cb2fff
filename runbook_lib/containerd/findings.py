"""The containerd planners' findings: the one finding type (runbook_lib.findings.problem.Problem) with a code, the values
for its fields, and the bilingual what/fix with the file and line. The planners raise it as FindingError (a
ConfigError, so a step that catches ConfigError already refuses before any write)."""

from __future__ import annotations

from runbook_lib.findings.errors import ConfigError
from runbook_lib.findings.problem import Problem, words
from runbook_lib.findings.messages import Msg


class Finding(Problem):
    """A Problem (the one finding type) built the way the containerd planners build theirs: code and values
    first. ``error()`` raises it as a FindingError, so a plan that meets it refuses before any write."""

    def __init__(self, code: str, values: dict | None = None, what: Msg | None = None, fix: Msg | None = None,
                 path: str | None = None, line: int | None = None):
        """Without ``what``, the words come from the catalog (runbook_lib/data/findings.yaml), by ``code``."""
        values = dict(values or {})
        why = None
        if what is None:
            shown = {k: ", ".join(map(str, v)) if isinstance(v, (list, tuple)) else v for k, v in values.items()}
            what, fix, why = words(code, **shown)
        super().__init__(what, fix, path, line, why, code=code, values=values)

    def error(self) -> "FindingError":
        cls = RuntimeOwnedElsewhere if self.code in OWNER_CODES else FindingError
        err = cls(self.what, self.fix, path=self.path, line=self.line, code=self.code)
        err.finding = self
        return err


class FindingError(ConfigError):
    """A ConfigError that carries its Finding (``.finding``)."""
    finding: Finding


# Another owner's runtime (owner.py): the planners raise these as RuntimeOwnedElsewhere instead of rewriting it.
OTHER_BINARY = "runtime-other-binary"          # an existing runtime of that name runs another binary
BINARY_MISSING = "runtime-binary-missing"      # real node: the binary the runbook would register is not there
TEMPLATE_HAS_RUNTIME = "template-has-runtime"  # a k3s/RKE2 base already defines the runtime (distro/edit.py)
OWNER_CODES = (OTHER_BINARY, BINARY_MISSING, TEMPLATE_HAS_RUNTIME)


class RuntimeOwnedElsewhere(FindingError):
    """Raised by the planners instead of rewriting another owner's runtime; ``finding`` holds the details."""
