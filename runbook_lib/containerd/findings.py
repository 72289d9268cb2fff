"""The containerd planners' errors: a finding (the one Problem, with a code) raised as FindingError (a
ConfigError, so a step that catches ConfigError already refuses before any write), or, for another owner's
runtime, as RuntimeOwnedElsewhere. Both carry the finding whole (``.finding``, ``Problem.from_error``)."""

from __future__ import annotations

from runbook_lib.findings.errors import ConfigError
from runbook_lib.findings.problem import Problem


class FindingError(ConfigError):
    """A ConfigError raised by a containerd planner, carrying its finding (``.finding``)."""


# Another owner's runtime (owner.py): the planners raise these as RuntimeOwnedElsewhere instead of rewriting it.
OTHER_BINARY = "runtime.other_binary"              # an existing runtime of that name runs another binary
BINARY_MISSING = "runtime.binary_missing"          # real node: the binary the runbook would register is not there
TEMPLATE_HAS_RUNTIME = "distro.template_has_runtime"  # a k3s/RKE2 base already defines the runtime (distro/edit.py)
OWNER_CODES = (OTHER_BINARY, BINARY_MISSING, TEMPLATE_HAS_RUNTIME)


class RuntimeOwnedElsewhere(FindingError):
    """Raised by the planners instead of rewriting another owner's runtime; ``finding`` holds the details."""


def raised(finding: Problem) -> FindingError:
    """The error a planner raises for ``finding``: RuntimeOwnedElsewhere for another owner's runtime."""
    return (RuntimeOwnedElsewhere if finding.code in OWNER_CODES else FindingError)(finding)
