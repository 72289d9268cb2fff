"""mode=remove on a distribution's route (distro.py): what distro_edit.py added comes out, nothing else.

- plain containerd, a user-managed k0s config, microk8s's template (TOML with placeholders): remove.py's
  plan on that file (the runtime tables, the conf.d drop-in and its imports entry).
- a drop-in folder (k3s/RKE2 config-v3.toml.d, k0s containerd.d): the drop-in is retired when it carries the
  runbook's first line.
- a k3s/RKE2 Go template: the block the runbook appended is taken out (with the blank line put before it);
  a template the runbook created (only the base include and the block) is retired.
"""

from __future__ import annotations

from runbook_lib.findings.messages import Msg
from runbook_lib.fs.safe_write import plan_write, read_bytes
from runbook_lib.fs.target import Target
from runbook_lib.containerd.distro.detect import EDIT_DROPIN_DIR, EDIT_GO_TEMPLATE, Route
from runbook_lib.containerd.distro.edit import DROPIN_COMMENT, template_block
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
        plan.notes.append(Msg("runbook 이 더한 것이 없어 뺄 것이 없습니다.", "nothing the runbook added is there: nothing to remove."))
    elif raw.decode("utf-8", "replace").startswith(DROPIN_COMMENT):
        plan.retire.append(lab_path)
        plan.notes.append(Msg(f"runbook 이 쓴 드롭인을 치웁니다 (백업을 남김): {lab_path}",
                              f"retiring the drop-in the runbook wrote (a backup is kept): {lab_path}"))
    else:
        plan.kept.append(Msg(f"runbook 이 쓴 파일이 아니라서 그대로 둡니다 (첫 줄에 runbook 표시가 없음): {lab_path}",
                             f"{lab_path} was not written by the runbook (no runbook mark on its first line), so it is kept."))
    return plan


def _remove_template_block(target: Target, route: Route, wanted: RuntimeWanted) -> Plan:
    plan = Plan()
    raw = read_bytes(target.resolve(route.path), shown=route.path)
    block = template_block(route.version or 3, wanted)
    text = raw.decode("utf-8") if raw is not None else None
    nl = "\r\n" if text and "\r\n" in text else "\n"  # distro_edit ends the block's lines as the template's
    block = block.replace("\n", nl)
    if text is None or block not in text:
        plan.notes.append(Msg("runbook 이 더한 것이 없어 뺄 것이 없습니다.", "nothing the runbook added is there: nothing to remove."))
        return plan
    if text == CREATED_TEMPLATE.replace("\n", nl) + block:
        plan.retire.append(route.path)
        plan.notes.append(Msg(f"runbook 이 만든 템플릿을 치웁니다 (백업을 남김): {route.path}",
                              f"retiring the template the runbook created (a backup is kept): {route.path}"))
        return plan
    at = text.rindex(block)
    start = at - len(nl) if text[:at].endswith(nl + nl) else at  # the blank line distro_edit put before it
    new = text[:start] + text[at + len(block):]
    plan.writes.append(plan_write(target, route.path, new.encode()))
    plan.notes.append(Msg(f"템플릿에서 runbook 이 덧붙인 런타임 테이블을 뺍니다: {wanted.name} ({route.path})",
                          f"removing the runtime tables the runbook appended to the template: {wanted.name} ({route.path})"))
    return plan
