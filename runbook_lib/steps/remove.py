"""mode=remove: take out exactly what the runbook added, nothing else — the runtime's tables (or its drop-in and
the import line it added: containerd/remove.py; a distribution's route: containerd/distro/remove.py), the CDI
settings an enable_cdi=True run wrote (containerd/cdi_config.py), and the toolkit files and CDI spec it wrote, recognised by
holding exactly the bytes the runbook writes for them. Every change is planned first, shown as a diff, and each
removed or edited file is kept as a backup. A second run finds nothing to remove."""

from __future__ import annotations

import posixpath

from runbook_lib.cdi import spec as cdi
from runbook_lib.containerd import remove as undo
from runbook_lib.containerd.cdi_config import unplan_cdi
from runbook_lib.containerd.distro.remove import plan_remove_route
from runbook_lib.containerd.load import load_toml
from runbook_lib.containerd.variants import runtime_variants
from runbook_lib.containerd.versions import detect_version
from runbook_lib.findings.catalog import say
from runbook_lib.findings.errors import RunbookError
from runbook_lib.findings.messages import Msg
from runbook_lib.findings.problem import Problem, words
from runbook_lib.fs import applied_record
from runbook_lib.fs.plan import Plan
from runbook_lib.steps.base import Step

NUMBER = ID = "remove"
TITLE = say("title.remove")
TOOLKIT_FILES = ("default", "default.txt"), ("parse", "parsed.txt"), ("cdi", "cdi-keys.txt"), \
    ("runtimeclass", "runtimeclass.yaml"), ("report", "report.txt")


def all_variants(run):
    """The variants an earlier run may have added (whatever this run's variants parameter says): only a table
    that is exactly the runbook's, with the variant's own binary, is ever taken out."""
    return runtime_variants(run.wanted)


def ours(run) -> list[str]:
    """The toolkit files (and the minimal CDI spec) whose bytes are exactly what the runbook writes for them on
    the current state: what a person wrote by hand, or changed since, is theirs and stays."""
    found: list[str] = []
    for variants in (False, True):  # as a run with or without the variants would have written them
        mirror = run.mirror(mode="check", variants=variants)
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


def _without_cdi_settings(run, planned: dict[str, bytes]) -> list[Msg]:
    """The runbook's minimal CDI spec goes, so the enable_cdi (and cdi_spec_dirs) an enable_cdi=True run wrote
    for it goes too, when config.toml holds them exactly where and as that run wrote them."""
    lab = run.p.config_path
    raw = planned.get(lab) or run.read_bytes(lab)
    if raw is None:
        return []
    try:
        f = load_toml(raw, lab)
        version = detect_version(f.data, path=lab, empty=f.empty, text=f.text)
    except RunbookError:
        return []
    text = unplan_cdi(f.text, version, posixpath.dirname(run.p.cdi_spec), lab_path=lab)
    if text is None:
        return []
    planned[lab] = f.encode(text)
    return [say("steps.remove.also_removing_cdi_settings", lab=lab)]


def _removals(run, planned: dict[str, bytes]):
    """The removal plans, one by one (each sees the planned bytes of the ones before). On k3s, RKE2, k0s and
    microk8s the runbook wrote to the distribution's route (its template or drop-in folder), never to the
    generated config.toml: the removal is taken from that route, or the runtime would come back at the
    distribution's next start."""
    if run.on_distro:
        yield plan_remove_route(run.target, run.route, run.wanted)  # the variants are written in place only
        return
    for wanted in list(reversed(all_variants(run))) + [run.wanted]:  # the reverse of the order they were added in
        yield undo.plan_remove(run.target, run.p.config_path, wanted, base=planned)


def plan(run) -> Plan:
    """Only what a run recorded as written (fs/applied_record.py): when every such file still holds the run's bytes,
    each gets its original back byte for byte (or goes, when the run created it); when someone changed one since,
    the recorded files are left to the table-by-table removal; a file no run wrote is never touched."""
    p = run.p
    entries = applied_record.load(run.target)
    if entries is None:
        out = Plan(words("remove.no_record", record=applied_record.RECORD)[0], subject=p.config_path)
        out.exact, out.recorded = {}, set()
        return out
    groups = applied_record.runtime_groups(run.target)
    others = [n for n in groups if n != run.wanted.name]
    if others and run.wanted.name not in groups:  # not one the runbook added, or removed already
        out = Plan(words("remove.by_name_not_recorded", name=run.wanted.name, others=", ".join(others))[0],
                   subject=p.config_path)
        out.exact, out.recorded = {}, set()
        return out
    if others and not run.on_distro:
        return _plan_by_name(run, entries, others, groups[run.wanted.name])
    untouched = set(applied_record.untouched(run.target, entries))  # nothing of a run in them: only forgotten
    entries = {lab: e for lab, e in entries.items() if lab not in untouched}
    exact = applied_record.restorable(run.target, entries)
    if set(entries) - set(exact):  # someone changed a file since (a drop-in kept, say): table by table, for all
        exact = {}
    planned = {lab: before for lab, before in exact.items() if before is not None}
    retire = [lab for lab, before in exact.items() if before is None]
    notes = [words("remove.restores_original" if before is not None else "remove.deletes_created", file=lab)[0]
             for lab, before in sorted(exact.items())]
    changed_since = set(entries) - set(exact)
    # as the disk is: its choices for those files only; each removal sees the bytes the ones before planned (the
    # variants' tables and the runtime's come out of the same config.toml, or the last removal puts them back)
    composed: dict[str, bytes] = {}
    for removal in _removals(run, composed) if changed_since else []:
        composed.update({w.lab_path: w.new for w in removal.writes})
        mine = [w for w in removal.writes if w.lab_path in changed_since]
        gone = [lab for lab in removal.retire if lab in changed_since]
        planned.update({w.lab_path: w.new for w in mine})
        retire += gone
        # a runtime with nothing to take out of a file a run wrote (a variant never added, a table the site wrote
        # in a config no run recorded) says nothing: the report names every file
        notes += (removal.notes if gone or any(w.changed for w in mine) else []) + removal.kept
    files = [lab for lab in ours(run) if lab in changed_since]
    if p.cdi_spec in files and p.config_path in changed_since and p.config_path not in retire and not run.on_distro:
        notes += _without_cdi_settings(run, planned)
    writes = [run.plan_write(lab, new) for lab, new in planned.items()]
    out = Plan(say("steps.remove.nothing_remove_nothing_runbook"),
               writes=[w for w in writes if w.changed], retire=retire + files, notes=notes, subject=p.config_path)
    out.retired = [run.plan_write(lab, b"") for lab in out.retire]
    out.exact, out.recorded = exact, changed_since
    if out.changed:
        out.message = say("steps.remove.remove", join=', '.join([w.lab_path for w in out.writes] + out.retire))
    return out


def _plan_by_name(run, entries, others: list[str], variants: list[str]) -> Plan:
    """mode=remove -p runtime_name X, where the record says runs added other runtimes too (nvidia beside
    nvidia-cdi): only X's tables (or its drop-in and import line) come out, table by table; the other runtimes,
    the files the runtimes share (the toolkit files, the CDI spec) and the record's originals stay, for a later
    remove of each."""
    p = run.p
    names = [v.name for v in reversed(all_variants(run))] + [run.wanted.name]
    composed: dict[str, bytes] = {}
    retire, notes = [], []
    for name, removal in zip(names, _removals(run, composed)):
        if name != run.wanted.name and name not in variants:
            continue  # a variant's name may be a runtime of its own (nvidia-cdi): only X and the variants its run added
        composed.update({w.lab_path: w.new for w in removal.writes})
        retire += [lab for lab in removal.retire if lab in entries]
        notes += removal.notes + removal.kept
    notes.append(words("remove.by_name_only", name=run.wanted.name, others=", ".join(others))[0])
    writes = [run.plan_write(lab, new) for lab, new in composed.items() if lab in entries]
    out = Plan(say("steps.remove.nothing_remove_nothing_runbook"), writes=[w for w in writes if w.changed],
               retire=retire, notes=notes, subject=p.config_path)
    out.retired = [run.plan_write(lab, b"") for lab in out.retire]
    out.exact, out.recorded, out.by_name = {}, set(), run.wanted.name
    if out.changed:
        out.message = say("steps.remove.remove", join=', '.join([w.lab_path for w in out.writes] + out.retire))
    return out


def act(run, result) -> None:
    """After the writes: the record forgets every file that now holds its bytes from before any run (given back
    here, or never reached by a run that stopped first): nothing of a run is left in it to undo. After remove by
    name, it forgets that runtime, and the files it wrote hold the other runtimes' bytes from now on."""
    by_name = getattr(run.plans.get(ID), "by_name", None)
    if by_name is not None:
        applied_record.forget_runtime(run.target, by_name, [w.lab_path for w in run.plans[ID].writes])
        return
    entries = applied_record.load(run.target)
    if entries:
        applied_record.forget(run.target, applied_record.untouched(run.target, entries))


def _still_there(run) -> list[Msg]:
    if run.on_distro:  # the generated file keeps the runtime until the distribution's next start: read the route
        left = plan_remove_route(run.target, run.route, run.wanted)
        return [say("steps.remove.runtime_runbook_added_still", at=run.route.path)] if left.changed else []
    return [m for wanted in [run.wanted] + all_variants(run)
            for m in undo.confirm_removed(run.target, run.p.config_path, wanted)]


def _config_recorded(run, recorded: set[str]) -> bool:
    """A run wrote a file containerd's config is read from (config.toml, its drop-in, a distribution's template or
    drop-in), not only the toolkit files or the CDI spec: a config no run wrote keeps what the site put in it."""
    return any(not lab.startswith(run.tk("")) and lab != run.p.cdi_spec for lab in recorded)


def verdict(run) -> list[Problem]:
    plan = run.plans[ID]
    left = [Problem.of("remove.not_original", lab, file=lab)
            for lab, before in getattr(plan, "exact", {}).items() if run.read_bytes(lab) != before]
    if _config_recorded(run, getattr(plan, "recorded", set())):  # changed since: the runbook's tables must be gone
        left += [Problem.of("remove.still_there.runtime", run.route.path if run.on_distro else run.p.config_path, left=m)
                 for m in _still_there(run)]
    for lab in run.plans[ID].retire:
        if run.read_bytes(lab) is not None:
            left.append(Problem.of("remove.still_there", lab, lab=lab, lab_at=run.target.shell_path(lab)))
    return left


STEP = Step(NUMBER, ID, TITLE, plan, verdict, act=act, judged_in_plan=False)  # act: the record forgets what came back
