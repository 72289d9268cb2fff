"""The runbook's edit on each distribution's route (detect.py): a k3s/RKE2 Go template, a microk8s
placeholder template, a drop-in in a folder the generated config imports (k3s/RKE2 newer releases, k0s).

Each planner returns an EditPlan (new text, notes) and checks its result the way the distribution will use it
(render.py): the rendered config must read as the base plus the runtime, nothing lost, no table
defined twice. Another owner's runtime (k3s/RKE2 add `nvidia` themselves) is refused through owner.py.
"""

from __future__ import annotations

import copy
import re
import tomllib

from runbook_lib.findings.errors import ConfigError
from runbook_lib.fs.tomldoc import loads as toml_loads
from runbook_lib.containerd import render
from runbook_lib.containerd.dropin import mark_line, render_document
from runbook_lib.containerd.edit import EditPlan, RuntimeWanted, plan_runtime, template_runtime
from runbook_lib.containerd.distro.detect import BASE_INCLUDE, Route
from runbook_lib.containerd.distro.render import placeholders, render_microk8s, render_rancher_template
from runbook_lib.containerd.findings import raised
from runbook_lib.findings.problem import Problem
from runbook_lib.findings.catalog import say
from runbook_lib.containerd.owner import TEMPLATE_HAS_RUNTIME, foreign_runtime
from runbook_lib.containerd.tables import get_in, set_in
from runbook_lib.containerd.versions import RUNTIME_TYPE, of, runtime_path, runtimes_path
from runbook_lib.containerd.distro.render import rendered_error

PLACEHOLDER_NAME = "distro.placeholder_as_name"
DROPIN_COMMENT = mark_line() + "\n"  # the first line of the drop-in, as every drop-in the runbook writes starts


def _runtime_table(wanted: RuntimeWanted, cgroup: object) -> dict:
    return {"runtime_type": RUNTIME_TYPE, "options": {"BinaryName": wanted.binary, "SystemdCgroup": cgroup}}


# --- k3s / RKE2: the Go template ----------------------------------------------------------------------


def template_block(version: int, wanted: RuntimeWanted) -> str:
    """The lines appended to the template, as k3s writes its own extra runtimes (ExtraRuntimes): single
    quotes in version 3, double in version 2; SystemdCgroup follows k3s's own choice for runc."""
    q = of(version).k3s_quote
    prefix = ".".join(render.key(p, q) if "." in p else p for p in runtimes_path(version)) + f".{q}{wanted.name}{q}"
    return (f"[{prefix}]\n  runtime_type = \"{RUNTIME_TYPE}\"\n\n[{prefix}.options]\n"
            f"  BinaryName = {render.value(wanted.binary)}\n  SystemdCgroup = {{{{ .SystemdCgroup }}}}\n")


def _header_re(version: int, name: str) -> re.Pattern:
    plugin = re.escape(runtimes_path(version)[1])
    return re.compile(r"^\s*\[\s*plugins\s*\.\s*([\"'])" + plugin + r"\1\s*\.\s*containerd\s*\.\s*runtimes\s*\.\s*"
                      r"([\"']?)" + re.escape(name) + r"\2\s*\]", re.M)


def plan_rancher_template(route: Route, template: str | None, generated: str | None, wanted: RuntimeWanted) -> EditPlan:
    """The k3s/RKE2 template with the runtime's tables appended after the base include (a new template is
    just the include and the tables). ``generated`` is the config.toml the distribution wrote (the base
    rendered), used to refuse a runtime the base already defines (appending it would define it twice:
    containerd refuses the file) and to check the rendered result. Raises RuntimeOwnedElsewhere / ConfigError
    with a finding; never parses the template as TOML. Nothing to write when ``plan.text == (template or "")``
    (the base registers the runtime already, or the tables are there). ``replace_runtime`` cannot apply here:
    a template can only add tables, so a base table of another owner is always refused."""
    version = route.version or 3
    block = template_block(version, wanted)
    nl = "\r\n" if template and "\r\n" in template else "\n"  # the appended lines end as the template's do
    block = block.replace("\n", nl)
    if generated is not None:
        base = toml_loads(generated)
        table = get_in(base, runtime_path(version, wanted.name))
        if table is not None:
            f = foreign_runtime(base, version, wanted.name, wanted.binary, defined_in=route.generated,
                                line=_line_of(generated, _header_re(version, wanted.name)))
            if f is None:  # the distribution found the binary and registered it itself, as wanted
                return EditPlan(template or "", notes=[say("distro.edit.already_registers_runtime_itself", distro=route.distro, name=wanted.name, generated=route.generated)])
            raise raised(Problem.of(TEMPLATE_HAS_RUNTIME, route.generated, f.line, **f.values, template=route.path,
                                    owner_what=f.what, distro=route.distro))
    notes = []
    if template is None:
        new = '{{ template "base" . }}\n\n' + block
        notes.append(say("distro.edit.created_base_included_runtime", at=route.path))
    else:
        if block in template:
            return EditPlan(template, notes=[say("distro.edit.already_runtime_tables", at=route.path)])
        line = _line_of(template, _header_re(version, wanted.name))
        if line is not None:
            raise ConfigError.of("config.unreadable.template_already_runtime_table", path=route.path, line=line, name=wanted.name, at=route.path, line_no=line)
        if not BASE_INCLUDE.search(template):
            notes.append(say("distro.edit.full_template_without_base", at=route.path))
        new = template + ("" if template.endswith("\n") else nl) + (nl if template.strip() else "") + block
        notes.append(say("distro.edit.appended_runtime_tables_end", name=wanted.name, at=route.path))
    if generated is not None and BASE_INCLUDE.search(new):
        check_rendered(new, generated, version, wanted, route.path, generated_path=route.generated)
    return EditPlan(new, notes=notes)


def check_rendered(template: str, generated: str, version: int, wanted: RuntimeWanted, lab_path: str, *,
                   generated_path: str = "config.toml") -> dict:
    """Render as k3s does with ``generated`` as the base: the result must read as the base plus the runtime."""
    text = render_rancher_template(template, generated, path=lab_path)
    try:
        rendered = toml_loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise rendered_error(exc, text, template, lab_path, generated_path) from None
    except ValueError as exc:
        raise ConfigError.of("config.unreadable.rendered_k3s_renders_template", path=lab_path, exc=exc) from None
    expected = toml_loads(generated)
    set_in(expected, runtime_path(version, wanted.name), _runtime_table(wanted, True))
    if get_in(rendered, runtime_path(version, wanted.name)) != get_in(expected, runtime_path(version, wanted.name)):
        raise ConfigError.of("config.unreadable.rendered_template_does_not", path=lab_path)
    return rendered


def _line_of(text: str, pattern: re.Pattern) -> int | None:
    m = pattern.search(text)
    return text.count("\n", 0, m.start()) + 1 if m else None


# --- microk8s: TOML with ${...} placeholders ----------------------------------------------------------


def plan_microk8s_template(text: str, wanted: RuntimeWanted, *, lab_path: str, replace_runtime: bool = False) -> EditPlan:
    """microk8s's containerd-template.toml with the runtime added, every placeholder kept. The template's
    `default_runtime_name = "${RUNTIME}"` is microk8s's runc, never a runtime to add; the result is checked
    rendered as microk8s renders it."""
    found = placeholders(text)
    if "${" in wanted.name or "${" in wanted.binary:
        raise raised(Problem.of(PLACEHOLDER_NAME, name=wanted.name))
    raw = toml_loads(text)
    rendered = toml_loads(render_microk8s(text))
    version = raw.get("version", 1) if type(raw.get("version", 1)) is int else 2
    existing = get_in(raw, runtime_path(version, wanted.name))
    if existing is not None:
        f = foreign_runtime(raw, version, wanted.name, wanted.binary, defined_in=lab_path, replace_runtime=replace_runtime)
        if f is not None:
            raise raised(f)
    template, source = template_runtime(rendered, version, wanted)  # copied from runc as microk8s fills it
    raw_source = get_in(raw, runtime_path(version, source)) if source else None
    if isinstance(raw_source, dict):  # but keep the template's own placeholders in the copied keys
        template = {**copy.deepcopy(raw_source), **{k: v for k, v in template.items() if k in ("runtime_type", "options")}}
        template = {"runtime_type": template.pop("runtime_type"), **template}
    plan = plan_runtime(text, raw, version, wanted, template, lab_path=lab_path, source_name=source,
                        replace_runtime=replace_runtime)
    after = toml_loads(render_microk8s(plan.text))
    expected = copy.deepcopy(rendered)
    set_in(expected, runtime_path(version, wanted.name), get_in(after, runtime_path(version, wanted.name)))
    if after != expected or any("${" in k for k in get_in(after, runtimes_path(version)) or {}):
        raise ConfigError.of("config.unreadable.rendered_microk8s_renders_config", path=lab_path)
    if found and plan.text != text:
        plan.notes.append(say("distro.edit.microk8s_s_placeholders_kept", join=', '.join('${' + p + '}' for p in found)))
    return plan


# --- a drop-in in a folder the generated config imports (k3s/RKE2, k0s) ---------------------------------


def plan_dropin_file(route: Route, base: str | None, wanted: RuntimeWanted, *, replace_runtime: bool = False,
                     owner: tuple | None = None) -> bytes:
    """The bytes of the drop-in for a distribution whose containerd (2.x, key-by-key merge) imports a folder:
    only the runtime's table, under the base's version (never above it: containerd 2.3.0-2.3.4 refuse that).
    ``base``: the config that imports it; ``owner``: (merged data, file, line) of the runtime as the other files
    define it (distro_plan), to refuse another owner's runtime of that name with the value containerd uses."""
    version = route.version or 3
    if owner is not None:
        data, where, line = owner
    elif base is not None:
        data, where, line = toml_loads(base), route.generated or route.config, _line_of(base, _header_re(version, wanted.name))
    if owner is not None or base is not None:
        f = foreign_runtime(data, version, wanted.name, wanted.binary, defined_in=where, line=line,
                            replace_runtime=replace_runtime)
        if f is not None:
            raise raised(f)
    doc = {"version": version}
    set_in(doc, runtime_path(version, wanted.name), _runtime_table(wanted, wanted.systemd_cgroup))
    quote = "'" if of(version).k3s_quote == "'" and base and render.quote_style(base) == "'" else '"'
    return (DROPIN_COMMENT + "\n" + render_document(doc, quote)).encode()
