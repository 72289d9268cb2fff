"""mode=remove: take out exactly what the runbook added, nothing else — the runtime's tables (or its drop-in and
the import line it added: containerd/remove.py), and the toolkit files and CDI spec it wrote, recognised by
holding exactly the bytes the runbook writes for them. Every change is planned first, shown as a diff, and each
removed or edited file is kept as a backup. A second run finds nothing to remove."""

from __future__ import annotations

from dataclasses import replace

from .. import cdi
from ..containerd import remove as undo
from ..errors import RunbookError
from ..findings import Problem
from ..messages import Msg
from ..run import Plan

NUMBER = ID = "remove"
TITLE = Msg("런북이 더한 것 되돌리기", "Remove what the runbook added")
JUDGED_IN_PLAN = False  # its verdict reads the disk after the removal (confirm_removed)
TOOLKIT_FILES = ("default", "default.txt"), ("parse", "parsed.txt"), ("cdi", "cdi-keys.txt"), \
    ("runtimeclass", "runtimeclass.yaml"), ("report", "report.txt")


def all_variants(run):
    """The variants an earlier run may have added (whatever this run's variants parameter says): only a table
    that is exactly the runbook's, with the variant's own binary, is ever taken out."""
    from ..containerd.variants import runtime_variants
    return runtime_variants(run.wanted)


def ours(run) -> list[str]:
    """The toolkit files (and the minimal CDI spec) whose bytes are exactly what the runbook writes for them on
    the current state: what a person wrote by hand, or changed since, is theirs and stays."""
    from ..run import Run
    found: list[str] = []
    for variants in (False, True):  # as a run with or without the variants would have written them
        mirror = Run(replace(run.p, mode="check", variants=variants))
        try:
            mirror.preflight()
        except RunbookError:
            continue
        for step_id, plan in mirror.plans.items():
            if step_id not in {s for s, _ in TOOLKIT_FILES}:
                continue
            for w in plan.writes:  # the runtime's RuntimeClass, and the variants' too
                if w.lab_path.startswith(run.tk("")) and w.lab_path not in found and run.read_bytes(w.lab_path) == w.new:
                    found.append(w.lab_path)
    if run.read_text(run.p.cdi_spec) == cdi.build_minimal_spec():
        found.append(run.p.cdi_spec)
    return found


def plan(run) -> Plan:
    p = run.p
    planned: dict[str, bytes] = {}
    retire, notes = [], []
    for wanted in _removed(run):
        removal = _plan_removal(run, wanted, planned)
        planned.update({w.lab_path: w.new for w in removal.writes})
        retire += removal.retire
        notes += removal.notes + removal.kept
    files = ours(run)
    writes = [run.plan_write(lab, new) for lab, new in planned.items()]
    out = Plan(Msg("되돌릴 것이 없습니다 (런북이 더한 것이 남아 있지 않습니다).", "nothing to remove: nothing the runbook added is left."),
               writes=[w for w in writes if w.changed], retire=retire + files, notes=notes, subject=p.config_path)
    out.retired = [run.plan_write(lab, b"") for lab in out.retire]
    if out.changed:
        out.message = Msg(f"되돌립니다: {', '.join([w.lab_path for w in out.writes] + out.retire)}",
                          f"remove: {', '.join([w.lab_path for w in out.writes] + out.retire)}")
    return out


def _removed(run) -> list:
    """The runtimes to take out, in the reverse of the order they were added in (variants are in-place only)."""
    return [run.wanted] if run.on_distro else list(reversed(all_variants(run))) + [run.wanted]


def _plan_removal(run, wanted, planned: dict[str, bytes]):
    """On a distribution's route, what distro_edit.py added there (the template block, the drop-in, microk8s's
    template): the generated file the distribution rewrites holds nothing of the runbook's own."""
    if run.on_distro:
        from ..containerd.distro_remove import plan_remove_route
        return plan_remove_route(run.target, run.route, wanted)
    return undo.plan_remove(run.target, run.p.config_path, wanted, base=planned)


def _left(run, wanted) -> list[Msg]:
    if run.on_distro:
        left = _plan_removal(run, wanted, {})
        return [Msg(f"런북이 더한 것이 아직 있습니다: {run.route.path}", f"what the runbook added is still there: {run.route.path}")] \
            if left.changed else []
    return undo.confirm_removed(run.target, run.p.config_path, wanted)


def verdict(run) -> list[Problem]:
    left = [Problem(m, Msg("mode=remove 로 다시 실행하거나, 남은 부분을 직접 지우세요.",
                           "run again with mode=remove, or delete what is left by hand."), run.p.config_path,
                    code="remove.still_there")
            for wanted in _removed(run)
            for m in _left(run, wanted)]
    for lab in run.plans[ID].retire:
        if run.read_bytes(lab) is not None:
            left.append(Problem(Msg(f"지우기로 한 파일이 아직 있습니다: {lab}", f"a file to remove is still there: {lab}"),
                                Msg(f"rm {lab}", f"rm {lab}"), lab, code="remove.still_there"))
    return left
