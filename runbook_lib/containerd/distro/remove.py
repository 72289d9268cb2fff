"""mode=remove on a distribution's route (detect.py): what edit.py added comes out, nothing else.

- plain containerd, a user-managed k0s config, microk8s's template (TOML with placeholders): remove.py's
  plan on that file (the runtime tables, the conf.d drop-in and its imports entry).
- a drop-in folder (k3s/RKE2 config-v3.toml.d, k0s containerd.d): the drop-in is retired when it carries the
  runbook's first line.
- a k3s/RKE2 Go template: the block the runbook appended is taken out (with the blank line put before it);
  a template the runbook created (only the base include and the block) is retired.
"""

from __future__ import annotations
from runbook_lib.findings.catalog import say

from runbook_lib.fs.safe_write import plan_write, read_bytes
from runbook_lib.fs.target import Target
from runbook_lib.containerd.distro.detect import EDIT_DROPIN_DIR, EDIT_GO_TEMPLATE, Route
from runbook_lib.containerd.distro.edit import template_block
from runbook_lib.containerd.dropin import DROPIN_MARK
from runbook_lib.containerd.edit import RuntimeWanted
from runbook_lib.containerd.remove import plan_remove, with_retired
from runbook_lib.fs.plan import Plan

CREATED_TEMPLATE = '{{ template "base" . }}\n\n'


def plan_remove_route(target: Target, route: Route, wanted: RuntimeWanted) -> Plan:
    """The removal plan for ``route``; commit it with remove.commit_remove, check with the route's verify."""
    if route.edit == EDIT_DROPIN_DIR:
        return with_retired(target, _remove_dropin(target, route.path))
    if route.edit == EDIT_GO_TEMPLATE:
        return with_retired(target, _remove_template_block(target, route, wanted))
    return plan_remove(target, route.path, wanted)


def _remove_dropin(target: Target, lab_path: str) -> Plan:
    plan = Plan()
    raw = read_bytes(target.resolve(lab_path), shown=lab_path)
    if raw is None:
        plan.notes.append(say("distro.remove.nothing_runbook_added_there"))
    elif raw.decode("utf-8", "replace").startswith(DROPIN_MARK):  # the runbook's, as dropin.py and remove.py tell
        plan.retire.append(lab_path)
        plan.notes.append(say("distro.remove.retiring_drop_runbook_wrote", lab_path=lab_path))
    else:
        plan.kept.append(say("distro.remove.file_not_ours", lab_path=lab_path))
    return plan


def _remove_template_block(target: Target, route: Route, wanted: RuntimeWanted) -> Plan:
    plan = Plan()
    raw = read_bytes(target.resolve(route.path), shown=route.path)
    block = template_block(route.version or 3, wanted)
    text = raw.decode("utf-8") if raw is not None else None
    nl = "\r\n" if text and "\r\n" in text else "\n"  # distro_edit ends the block's lines as the template's
    block = block.replace("\n", nl)
    if text is None or block not in text:
        plan.notes.append(say("distro.remove.nothing_runbook_added_there_2"))
        return plan
    if text == CREATED_TEMPLATE.replace("\n", nl) + block:
        plan.retire.append(route.path)
        plan.notes.append(say("distro.remove.retiring_template_runbook_created", at=route.path))
        return plan
    at = text.rindex(block)
    start = at - len(nl) if text[:at].endswith(nl + nl) else at  # the blank line distro_edit put before it
    new = text[:start] + text[at + len(block):]
    plan.writes.append(plan_write(target, route.path, new.encode()))
    plan.notes.append(say("distro.remove.removing_runtime_tables_runbook", name=wanted.name, at=route.path))
    return plan
