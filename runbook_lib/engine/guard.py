"""The general guard of apply's promise, before any write (Run.preflight calls ``refusal``): when a containerd
can be asked (the one step 9 asks: a real node's, or the containerd_bin parameter's), it reads the node's config as it is now and as the plan would
leave it (containerd/planned_copy.py: private copies, never the root), and the plan refuses when the planned
reading differs beyond what the run means to add (containerd/invariant.py). The pure-Python rules
(reads_2x.py, the steps' verdicts) stay as they are: they are all there is when no containerd can be asked.
"""

from __future__ import annotations

from runbook_lib.containerd import ask, render
from runbook_lib.containerd.effective import load_effective
from runbook_lib.containerd.invariant import changed_values
from runbook_lib.containerd.planned_copy import read_both
from runbook_lib.findings.catalog import say
from runbook_lib.findings.errors import RunbookError
from runbook_lib.findings.problem import Problem
from runbook_lib.fs.safe_write import read_bytes
from runbook_lib.steps.runtime import variants

SHOWN = 6  # changes named in the finding; the rest are counted


def refusal(run) -> Problem | None:
    """The finding that refuses the plan, or None when it keeps the promise or containerd cannot be asked."""
    p = run.p
    if not run.mode.adds or not run.path(p.config_path).is_file():
        return None  # only apply adds; with no config yet (a lab root before step 1) there is nothing to keep
    binary, _ = ask.choose_binary(p, run.target)
    if binary is None:
        return None
    try:
        now_eff = load_effective(run.target, p.config_path)
        planned_files = run.effective().files
    except RunbookError:
        return None  # an unreadable config is refused by the steps' own verdicts
    if now_eff.main.empty:
        return None  # an empty config is replaced by the lab's base (step 1): the node has nothing of its own to keep
    now_files = now_eff.files
    paths = {f.lab_path for f in now_files} | {f.lab_path for f in planned_files}
    rendered = run.rendered()
    now, planned = {}, {}
    for lab in sorted(paths):
        disk = read_bytes(run.target.resolve(lab), shown=lab)
        if disk is not None:
            now[lab] = disk
        wanted = rendered.get(lab, run.read_bytes(lab))
        if wanted is not None:
            planned[lab] = wanted
    readings = read_both(binary, p.config_path, now, planned)
    version = ask.containerd_version(binary)
    cmd = ask.DUMP_CMD.format(config=p.config_path)
    if readings.rejected_planned is not None:
        return Problem.of("containerd.plan.rejects", p.config_path, version=version, said=readings.rejected_planned,
                          cmd=cmd)
    if readings.now is None or readings.planned is None:
        return None  # containerd refuses the node's config as it is: the steps' verdicts say why
    names = (p.runtime_name, *(v.name for v in variants(run)))
    # `imports` in a dump lists the files containerd read: a planned drop-in adds itself there; what any file
    # read holds shows in the settings it merges, which are compared
    changes = changed_values(readings.now, readings.planned, names, imports=True)
    if not changes:
        return None
    keys, before, after = changes[0]
    listed = "; ".join(f"{_dotted(k)}: {ask.shown(a)} → {ask.shown(b)}" for k, a, b in changes[:SHOWN])
    more = say("containerd.plan.more", count=len(changes) - SHOWN) if len(changes) > SHOWN else ""
    return Problem.of("containerd.plan.changed_beside" if before is not None else "containerd.plan.changed_beside.appears",
                      p.config_path, version=version, runtime=p.runtime_name, changes=listed, more=more,
                      table=render.header([render.key(k) for k in keys[:-1]]), key=render.key(keys[-1]),
                      value=render.value(before) if before is not None else "-", after=ask.shown(after), cmd=cmd)


def _dotted(keys: tuple[str, ...]) -> str:
    return ".".join(render.key(k) for k in keys)
