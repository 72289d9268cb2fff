"""The general guard of apply's promise, before any write: the run's consumer reads the node's config as it is
now and as the plan would leave it, and the plan refuses when the planned reading differs beyond what the run
means to add (containerd's: runbook_lib/containerd/consumer/guard.py). The steps' verdicts stay as they are: they
are all there is when the runtime cannot be asked.
"""

from __future__ import annotations

from runbook_lib.findings.problem import Problem


def refusal(run) -> Problem | None:
    """The finding that refuses the plan, or None when it keeps the promise or the runtime cannot be asked."""
    return run.consumer.plan_refusal(run)
