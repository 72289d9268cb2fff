"""The runbook's steps, listed once, in order. Every step is a module with the same small interface:

- ``NUMBER``, ``ID``, ``TITLE``: how the step is shown (the lab's number, a stable id, a bilingual title);
- ``plan(run) -> Plan``: what would change and why, computed in memory (runbook_lib/engine/run.py);
- ``verdict(run) -> list[Problem]``: the findings, read back from disk, the same in apply and check mode;
- ``JUDGED_IN_PLAN = False`` for a step whose verdict cannot be computed on the planned state (it asks
  containerd, or acts on the node); every other step's verdict is also run on the planned state;
- optionally ``evidence(run)`` (what a person should see read back), ``skipped(run)`` (why the step cannot
  run here) and ``act(run, result)`` (a step that acts on the node, not on files: the restart).

Each receives the run context explicitly; no step keeps state of its own.

May import: findings, fs, k8s, containerd, cdi (never the engine that drives them: a step sees the run
context it is given, declared in steps/base.py).
"""

from runbook_lib.steps import ask_containerd, cdi, default_runtime, options, parse, pod, prepare, remove, report, restart, runtime, runtimeclass

# pod: after the restart, a pod through the handler (the smoke parameter; skipped when it is off)
STEPS = (prepare, runtime, options, default_runtime, parse, cdi, runtimeclass, report, ask_containerd, restart, pod)
# mode=remove: what the runbook added is taken out, then containerd is asked and restarted as after an apply
REMOVE_STEPS = (remove, ask_containerd, restart)

__all__ = ["STEPS", "REMOVE_STEPS"]
