"""mode=remove as containerd has it (moved from runbook_lib/steps/remove.py): the runtime's tables (or its drop-in
and the import line it added: containerd/remove.py), or the distribution's route, and the CDI settings an
enable_cdi=True run wrote."""

from __future__ import annotations

from runbook_lib.containerd import remove as undo
from runbook_lib.findings.errors import RunbookError
from runbook_lib.findings.messages import Msg
from runbook_lib.findings.catalog import say
from runbook_lib.containerd.variants import runtime_variants
from runbook_lib.containerd.cdi_config import unplan_cdi
from runbook_lib.containerd.load import load_toml
from runbook_lib.containerd.versions import detect_version
from runbook_lib.containerd.distro.remove import plan_remove_route


def all_variants(run):
    """The variants an earlier run may have added (whatever this run's variants parameter says): only a table
    that is exactly the runbook's, with the variant's own binary, is ever taken out."""
    return runtime_variants(run.wanted)


def without_cdi_settings(run, planned: dict[str, bytes]) -> list[Msg]:
    """The runbook's minimal CDI spec goes, so the enable_cdi (and cdi_spec_dirs) an enable_cdi=True run wrote
    for it goes too, when config.toml holds them exactly where and as that run wrote them."""
    import posixpath
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


def removals(run, planned: dict[str, bytes]):
    """The removal plans, one by one (each sees the planned bytes of the ones before). On k3s, RKE2, k0s and
    microk8s the runbook wrote to the distribution's route (its template or drop-in folder), never to the
    generated config.toml: the removal is taken from that route, or the runtime would come back at the
    distribution's next start."""
    if run.on_distro:
        yield plan_remove_route(run.target, run.route, run.wanted)  # the variants are written in place only
        return
    for wanted in list(reversed(all_variants(run))) + [run.wanted]:  # the reverse of the order they were added in
        yield undo.plan_remove(run.target, run.p.config_path, wanted, base=planned)


def still_there(run) -> list[Msg]:
    if run.on_distro:  # the generated file keeps the runtime until the distribution's next start: read the route
        left = plan_remove_route(run.target, run.route, run.wanted)
        return [say("steps.remove.runtime_runbook_added_still", at=run.route.path)] if left.changed else []
    return [m for wanted in [run.wanted] + all_variants(run)
            for m in undo.confirm_removed(run.target, run.p.config_path, wanted)]
