"""The runbook's steps, listed once, in order. Every step is a module that ends with ``STEP = Step(...)``
(runbook_lib/steps/base.py): its number (the lab's, for display), its id (its module's name, the one key of its
plan, its result and its cells), its title, ``plan(run) -> Plan`` and ``verdict(run) -> list[Problem]``, and
whichever other hooks it has (evidence, skipped, message, act, writes, judged_in_plan, depends), each declared
there with its default: the engine never probes a step for a hook.

Each receives the run context explicitly; no step keeps state of its own.

May import: findings, fs, k8s, containerd, cdi (never the engine that drives them: a step sees the run context
it is given, declared in steps/base.py). A step calls the containerd module that holds its rule directly
(steps/runtime.py -> containerd/edit.py, steps/remove.py -> containerd/remove.py, ...): containerd is the one
runtime the runbook configures, so there is no seam between them to follow.
"""

from runbook_lib.steps import ask_containerd, cdi, default_runtime, options, parse, pod, prepare, remove, report, restart, runtime, runtimeclass

# pod: after the restart, a pod through the handler (the smoke parameter; skipped when it is off)
STEPS = tuple(m.STEP for m in (prepare, runtime, options, default_runtime, parse, cdi, runtimeclass, report, ask_containerd,
                                restart, pod))
# mode=remove: what the runbook added is taken out, then containerd is asked and restarted as after an apply
REMOVE_STEPS = (remove.STEP, ask_containerd.STEP, restart.STEP)

__all__ = ["STEPS", "REMOVE_STEPS"]
