"""One call for the step layer: the writes that register the runtime on a distribution's route (detect.py),
planned in memory and checked as the distribution will read them (edit.py); safe_write commits them.

A plain containerd config (route.edit == EDIT_CONFIG) is not handled here: the existing in-place / drop-in
planners (edit.py, dropin.py) do it, on route.path.
"""

from __future__ import annotations

from runbook_lib.fs.plan import Plan
from runbook_lib.fs.safe_write import plan_write, read_bytes
from runbook_lib.findings.catalog import say
from runbook_lib.fs.target import Target
from runbook_lib.containerd.distro.detect import EDIT_CONFIG, EDIT_DROPIN_DIR, EDIT_GO_TEMPLATE, EDIT_PLACEHOLDER_TEMPLATE, Route
from runbook_lib.containerd.distro.edit import plan_dropin_file, plan_microk8s_template, plan_rancher_template
from runbook_lib.containerd.edit import RuntimeWanted
from runbook_lib.findings.errors import RunbookError
from runbook_lib.containerd.effective import locate
from runbook_lib.containerd.effective import load_effective
from runbook_lib.containerd.tables import get_in
from runbook_lib.containerd.versions import runtime_path
from runbook_lib.containerd.load import TomlFile, decode_text


def _text(target: Target, lab_path: str | None) -> str | None:
    if lab_path is None:
        return None
    raw = read_bytes(target.resolve(lab_path), shown=lab_path)
    return raw.decode("utf-8") if raw is not None else None


def _defined_elsewhere(target: Target, route: Route, wanted: RuntimeWanted):
    """(merged data, file, line) of the runtime as the other files read through the folder define it (the
    generated config and the site's own drop-ins, merged key by key as containerd 2.x does), without the
    runbook's drop-in; None when no file defines it or the files cannot be read (the steps say why)."""
    try:
        eff = load_effective(target, route.config, overlay={route.path: b""})
    except RunbookError:
        return None
    path = runtime_path(route.version or eff.version, wanted.name)
    if get_in(eff.data, path) is None:
        return None
    where, line = locate(eff, path + ("options", "BinaryName"))
    return eff.data, where, line


def plan_route(target: Target, route: Route, wanted: RuntimeWanted, *, replace_runtime: bool = False) -> Plan:
    """The writes for ``route`` (none when nothing changes: a second run plans nothing). Raises FindingError /
    RuntimeOwnedElsewhere / ConfigError before anything is written when the route cannot take the runtime."""
    if route.edit == EDIT_CONFIG:
        raise ValueError("a plain config goes through edit.py / dropin.py, not plan_route")
    plan = Plan(notes=list(route.notes))
    if route.edit == EDIT_GO_TEMPLATE:
        template = _text(target, route.path)
        edit = plan_rancher_template(route, template, _text(target, route.generated), wanted)
        plan.notes += edit.notes
        if edit.changed_from(template or ""):
            plan.writes.append(plan_write(target, route.path, edit.text.encode(), mode=0o644))
    elif route.edit == EDIT_PLACEHOLDER_TEMPLATE:  # TOML with placeholders: planned like a config, on '\n' text
        raw = read_bytes(target.resolve(route.path), shown=route.path)
        template, bom, crlf = decode_text(raw, route.path) if raw is not None else ("", False, False)
        edit = plan_microk8s_template(template, wanted, lab_path=route.path, replace_runtime=replace_runtime)
        plan.notes += edit.notes
        if edit.changed_from(template):  # written back with the template's own BOM and line ends
            plan.writes.append(plan_write(target, route.path, TomlFile(route.path, template, {}, bom, crlf).encode(edit.text)))
    elif route.edit == EDIT_DROPIN_DIR:
        new = plan_dropin_file(route, _text(target, route.config), wanted, replace_runtime=replace_runtime,
                               owner=_defined_elsewhere(target, route, wanted))
        write = plan_write(target, route.path, new, mode=0o644)
        plan.folder = route.path.rsplit("/", 1)[0]
        if write.changed:
            plan.writes.append(write)
            plan.notes.append(say("distro.plan.writing_drop", at=route.path))
    return plan
