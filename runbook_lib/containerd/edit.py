"""Add (or bring up to date) one runtime table in a containerd config's text, keeping every other byte.

The plan is a list of small text patches computed from the file's layout: insert the new tables right after
the last sibling runtime, indented and spaced like it, in the file's own quoting style; or replace just the
value of a wrong key, keeping its comment. The result is accepted only if tomllib reads it as exactly the
original data plus the intended change; otherwise nothing is written and the user is told why.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from runbook_lib.findings.errors import ConfigError
from runbook_lib.containerd.findings import raised
from runbook_lib.findings.messages import Msg
from runbook_lib.findings.catalog import say
from runbook_lib.containerd import releases, render
from runbook_lib.containerd.releases import RuntimeKeys
from runbook_lib.containerd.layout import Header, Layout, scan
from runbook_lib.containerd.versions import RUNTIME_TYPE, format_path, runtime_path, runtimes_path
from runbook_lib.containerd.load import require_reads_as
from runbook_lib.containerd.splice import keep_last_line, lines_of, replace_spans
from runbook_lib.containerd.owner import foreign_runtime
from runbook_lib.containerd.spelling import variant_notes, without_variants
from runbook_lib.containerd.tables import get_in, set_in
from runbook_lib.containerd.versions import containerd_table
from runbook_lib.findings.problem import Problem

OPTIONS = "options"


@dataclass
class RuntimeWanted:
    name: str
    binary: str
    systemd_cgroup: bool

    def settings(self) -> dict[tuple[str, ...], object]:
        """The values the runbook owns, by path inside the runtime table."""
        return {
            ("runtime_type",): RUNTIME_TYPE,
            (OPTIONS, "BinaryName"): self.binary,
            (OPTIONS, "SystemdCgroup"): self.systemd_cgroup,
        }


@dataclass
class EditPlan:
    text: str                                     # the new text ('\n' line endings)
    notes: list[Msg] = field(default_factory=list)  # what was done, for the notebook
    repairs: list[Msg] = field(default_factory=list)  # wrong values that were corrected
    options: list[Msg] = field(default_factory=list)  # which of the notes and repairs are the options' (step 3's)

    def changed_from(self, old: str) -> bool:
        return self.text != old


def cgroup_as_read(options) -> object:
    """SystemdCgroup as containerd reads a runtime's options: a key left out is its zero value, false; anything
    else as written (a quoted "true" stays a string, its own finding)."""
    if not isinstance(options, dict):
        return False
    return options.get("SystemdCgroup", False)


def default_runtime_name(data: dict, version: int) -> str:
    node = get_in(data, containerd_table(version))
    name = node.get("default_runtime_name") if isinstance(node, dict) else None
    return name if isinstance(name, str) and name else "runc"


def template_runtime(effective: dict, version: int, wanted: RuntimeWanted,
                     keys: RuntimeKeys | None = None) -> tuple[dict, str | None]:
    """The new runtime's table: a copy of what containerd keeps of the default runtime's (so
    privileged_without_host_devices, pod_annotations and the rest match it, as nvidia-ctk does), then the runbook's
    three settings. A key containerd drops (a typo such as BynaryName, 1.x's runtime_engine under 2.x) is not
    copied: ``keys`` is the node's containerd's reading of that table where it was asked, else the data's for the
    config's version (releases.py)."""
    runtimes = get_in(effective, runtimes_path(version))
    runtimes = runtimes if isinstance(runtimes, dict) else {}
    source = None
    for candidate in (default_runtime_name(effective, version), "runc", "crun"):
        if candidate != wanted.name and isinstance(runtimes.get(candidate), dict):
            source = candidate
            break
    table = copy.deepcopy(runtimes[source]) if source else {}
    keys = keys or releases.of_version(version)
    table = {k: v for k, v in table.items() if k in keys}
    table["runtime_type"] = RUNTIME_TYPE
    if not isinstance(table.get(OPTIONS), dict):
        table[OPTIONS] = {}
    # kubespray's `binaryName` / `systemdCgroup` are not carried over: next to BinaryName they would make
    # containerd's choice depend on its decoder's lookup order (spelling.py).
    table[OPTIONS] = without_variants(table[OPTIONS])
    if "BinaryName" not in table[OPTIONS]:  # the seed's order: the binary first, then the cgroup driver
        table[OPTIONS] = {"BinaryName": None, **table[OPTIONS]}
    table[OPTIONS]["BinaryName"] = wanted.binary
    table[OPTIONS]["SystemdCgroup"] = wanted.systemd_cgroup
    if "runtime_type" in table and list(table)[0] != "runtime_type" and source is None:
        table = {"runtime_type": table.pop("runtime_type"), **table}
    return table, source


def plan_runtime(text: str, data: dict, version: int, wanted: RuntimeWanted, template: dict,
                 *, lab_path: str, source_name: str | None = None, replace_runtime: bool = False) -> EditPlan:
    """Make ``text`` hold the runtime; ``template`` is used only when the runtime is not there yet.
    An existing runtime of that name with another absolute BinaryName is another owner's: the plan raises
    owner.RuntimeOwnedElsewhere (its ``finding`` says whose and what would change) unless ``replace_runtime``."""
    layout = scan(text)
    path = runtime_path(version, wanted.name)
    existing = get_in(data, path)
    if existing is None:
        _require_open_tables(text, path, lab_path)
        new_text = _insert_runtime(layout, version, wanted.name, template, source_name)
        expected = copy.deepcopy(data)
        set_in(expected, path, template)
        shown = f"[{format_path(path)}]"
        plan = EditPlan(new_text, notes=[say("edit.add_table_and_options" if OPTIONS in template else "edit.add_table",
                                             shown=shown)])
    else:
        if not isinstance(existing, dict):
            raise ConfigError.of("config.unreadable.not_table", path=lab_path, at='.'.join(path))
        kv = layout.keyvalue(path + (OPTIONS, "BinaryName"))
        finding = foreign_runtime(data, version, wanted.name, wanted.binary, defined_in=lab_path,
                                  line=kv.line + 1 if kv is not None else None, replace_runtime=replace_runtime)
        if finding is not None:
            raise raised(finding)
        new_text, expected, plan = _update_runtime(layout, data, path, wanted, lab_path)
        plan.notes += variant_notes(text, path + (OPTIONS,), existing.get(OPTIONS) or {}, lab_path)
    _verify(plan.text, expected, lab_path)
    return plan


def inline_table_problem(text: str, path: tuple[str, ...], lab_path: str, adding: str | None = None):
    """A table on the way to ``path`` written as one value (`runtimes = { runc = {...} }`) is closed: TOML
    allows nothing to be added to an inline table from outside it, so neither a new [section] nor a new key
    can go there. The finding says where it is and how to write it instead (None when the way is open)."""
    import tomllib
    layout = scan(text)
    for kv in layout.keyvalues:
        full = kv.full_path()
        if full != path[:len(full)] or not layout.value_text(kv).startswith("{"):
            continue
        line, col = layout.position(layout.text.index(kv.raw_key, layout.line_offsets[kv.line]))
        quote = render.quote_style(text)
        try:
            inner = tomllib.loads("x = " + layout.value_text(kv))["x"]
        except tomllib.TOMLDecodeError:
            inner = {}
        sub = next((k for k, v in inner.items() if isinstance(v, dict)), None)
        example = full + (sub,) if sub else full
        return Problem.of("config.inline_table", lab_path, line, col=col, excerpt=layout.lines[kv.line].rstrip("\n"),
                          table=format_path(full), key=kv.raw_key, adding=adding or f"[{format_path(path)}]",
                          header=render.header([render.key(p, quote) for p in full]),
                          example=render.header([render.key(p, quote) for p in example]))
    return None


def _require_open_tables(text: str, path: tuple[str, ...], lab_path: str, adding: str | None = None) -> None:
    problem = inline_table_problem(text, path, lab_path, adding)
    if problem is not None:
        raise ConfigError(problem.what, problem.fix, path=lab_path, line=problem.line, col=problem.col,
                          code=problem.code, excerpt=problem.excerpt)


def _verify(new_text: str, expected: dict, lab_path: str) -> None:
    require_reads_as(new_text, expected, lab_path,
                     say("containerd.edit.add_runtime_table_hand"))


# --- a new runtime -------------------------------------------------------------------------------------


def _insert_runtime(layout: Layout, version: int, name: str, table: dict, source_name: str | None) -> str:
    rpath = runtimes_path(version)
    siblings = [h for h in layout.headers
                if len(h.path) == len(rpath) + 1 and h.path[:-1] == rpath and not h.is_array]
    quote = render.quote_style(layout.text)
    step = "  " if any(h.indent for h in layout.headers) else ""
    model = next((h for h in siblings if h.path[-1] == source_name), siblings[-1] if siblings else None)

    if siblings:
        anchor_end = layout.subtree_end(siblings[-1])
        prefix = list(siblings[-1].raw_parts[:-1])
        hi = siblings[-1].indent
        sep = _separation(layout, siblings[-1])
    else:
        anc = _deepest_ancestor(layout, rpath + (name,))
        if anc is None:
            anchor_end = len(layout.lines) - 1
            prefix = [render.key(p, quote) for p in rpath]
            hi = ""
            sep = 1
        else:
            anchor_end = layout.subtree_end(anc)
            prefix = list(anc.raw_parts) + [render.key(p, quote) for p in rpath[len(anc.path):]]
            hi = anc.indent + step
            sep = 1 if any(layout.blank_lines_before(h.line) for h in layout.headers[1:]) else 0
    style = _Style.learn(layout, model, hi, step)
    literal = style.literal
    name_part = render.key(name, quote)
    head = [f"{hi}{render.header(prefix + [name_part])}"]
    model_kvs = _raw_values(layout, model.path) if model else {}
    body, subtables = [], []
    for k, v in table.items():
        if isinstance(v, dict) and k == OPTIONS:
            subtables.append((k, v))
            continue
        raw = model_kvs.get((k,)) if k != "runtime_type" and model_kvs.get((k,)) is not None else None
        body.append(f"{style.key_indent}{render.key(k, quote)} = {raw if raw is not None else render.value(v, literal=literal)}")
    block = head + body
    for k, sub in subtables:
        opt_raw = _raw_values(layout, model.path + (OPTIONS,)) if model else {}
        block += [""] * style.options_sep
        block.append(f"{style.options_indent}{render.header(prefix + [name_part, render.key(k, quote)])}")
        for ok, ov in sub.items():
            raw = opt_raw.get((ok,)) if ok not in ("BinaryName", "SystemdCgroup") else None
            block.append(f"{style.options_key_indent}{render.key(ok, quote)} = "
                         f"{raw if raw is not None else render.value(ov, literal=literal)}")
    # Put the block after the blank lines that follow the anchor, so the diff shows a clean insertion.
    trailing = 0
    while anchor_end + 1 + trailing < len(layout.lines) and not layout.lines[anchor_end + 1 + trailing].strip():
        trailing += 1
    if sep and trailing >= sep:
        return _insert_after(layout, anchor_end + sep, "\n".join(block + [""] * sep) + "\n")
    return _insert_after(layout, anchor_end, "\n".join([""] * sep + block) + "\n")


def _separation(layout: Layout, sibling: Header) -> int:
    """Blank lines between runtime tables: as before the sibling, or before its options table when the
    sibling directly follows its parent header (containerd 2.0's docs style)."""
    n = layout.blank_lines_before(sibling.line)
    opt = layout.header_for(sibling.path + (OPTIONS,))
    if n == 0 and opt is not None:
        n = layout.blank_lines_before(opt.line)
    return min(n, 2)


@dataclass
class _Style:
    key_indent: str
    options_indent: str
    options_key_indent: str
    options_sep: int
    literal: bool

    @classmethod
    def learn(cls, layout: Layout, model: Header | None, hi: str, step: str) -> "_Style":
        key_indent = hi + step
        options_indent = hi + step
        options_key_indent = options_indent + step
        options_sep = 1 if step or (model is None) else 0
        literal = False
        if model is not None:
            kvs = [kv for kv in layout.keyvalues if kv.table == model.path]
            if kvs:
                key_indent = kvs[0].indent
                literal = layout.value_text(kvs[0]).startswith("'")
            opt = layout.header_for(model.path + (OPTIONS,))
            if opt is not None:
                options_indent = opt.indent
                options_sep = min(layout.blank_lines_before(opt.line), 2)
                okvs = [kv for kv in layout.keyvalues if kv.table == opt.path]
                options_key_indent = okvs[0].indent if okvs else opt.indent + (key_indent[len(hi):] or step)
            else:
                options_indent = key_indent
                options_key_indent = key_indent + (key_indent[len(hi):] or step)
        else:
            literal = render.quote_style(layout.text) == "'"
        return cls(key_indent, options_indent, options_key_indent, options_sep, literal)


def _raw_values(layout: Layout, table: tuple[str, ...]) -> dict[tuple[str, ...], str]:
    return {kv.path: layout.value_text(kv) for kv in layout.keyvalues if kv.table == table}


def _deepest_ancestor(layout: Layout, path: tuple[str, ...]) -> Header | None:
    best = None
    for h in layout.headers:
        if not h.is_array and len(h.path) < len(path) and path[:len(h.path)] == h.path:
            if best is None or len(h.path) > len(best.path):
                best = h
    return best


def _insert_after(layout: Layout, line: int, block: str) -> str:
    lines = lines_of(layout.lines)
    if not lines:
        return block.lstrip("\n")
    text = "".join(lines[: line + 1]) + block + "".join(lines[line + 1:])
    return keep_last_line(layout.text, text, line + 1 < len(lines))


# --- an existing runtime -------------------------------------------------------------------------------


def _update_runtime(layout: Layout, data: dict, path: tuple[str, ...], wanted: RuntimeWanted,
                    lab_path: str) -> tuple[str, dict, EditPlan]:
    expected = copy.deepcopy(data)
    patches: list[tuple[int, int, str]] = []   # (start offset, end offset, replacement)
    inserts: dict[int, list[str]] = {}          # after line index -> lines
    notes, repairs, options = [], [], []
    header = layout.header_for(path)
    quote = render.quote_style(layout.text)
    for rel, want in wanted.settings().items():
        full = path + rel
        current = get_in(data, full)
        if current is None and rel == (OPTIONS, "SystemdCgroup") and cgroup_as_read(get_in(data, path + (OPTIONS,))) is want:
            continue  # left out: containerd reads false, its zero value, so the runtime is right as it is
        set_in(expected, full, want)
        if current == want and type(current) is type(want):
            continue
        kv = layout.keyvalue(full)
        shown = f"{'.'.join(rel)} = {render.value(want)}"
        if kv is not None:
            patches.append((kv.value_start, kv.value_end, render.value(want, literal=layout.value_text(kv).startswith("'"))))
            fixed = say("containerd.edit.correct_line", rel='.'.join(rel), kv=layout.value_text(kv), want=render.value(want), value=kv.line + 1)
            repairs.append(fixed)
            if rel[0] == OPTIONS:
                options.append(fixed)
            continue
        _require_open_tables(layout.text, full, lab_path, shown)  # no key can be added to an inline table
        table_path = path + rel[:-1]
        th = layout.header_for(table_path)
        dotted = [k for k in layout.keyvalues if k.full_path()[:-1] == table_path and len(k.path) > 1]
        if th is None and dotted:
            # the table is written as dotted keys (`options.BinaryName = ...`): one more dotted key beside them
            last = dotted[-1]
            prefix = last.raw_key[:last.raw_key.rfind(".") + 1]
            inserts.setdefault(last.end_line, []).append(f"{last.indent}{prefix}{render.key(rel[-1], quote)} = {render.value(want)}")
        elif th is not None:
            kvs = [k for k in layout.keyvalues if k.table == th.path]
            after = kvs[-1].end_line if kvs else th.line
            indent = kvs[-1].indent if kvs else th.indent + "  " * bool(th.indent or header and header.indent)
            inserts.setdefault(after, []).append(f"{indent}{render.key(rel[-1], quote)} = {render.value(want)}")
        elif header is not None and len(rel) == 2:
            # no [....options] table yet: add it after the runtime's own tables
            end = layout.subtree_end(header)
            kvs = [k for k in layout.keyvalues if k.table == header.path]
            key_indent = kvs[0].indent if kvs else header.indent + "  "
            lines = inserts.setdefault(end, [])
            opt_header = f"{key_indent}{render.header(list(header.raw_parts) + [rel[0]])}"
            if opt_header not in lines:
                lines += [f"{key_indent}{render.header(list(header.raw_parts) + [rel[0]])}"]
            lines.append(f"{key_indent}  {render.key(rel[-1], quote)} = {render.value(want)}")
        else:
            raise ConfigError.of("config.unreadable.not_written_section_tables", path=lab_path, at='.'.join(path), shown=shown)
        notes.append(say("containerd.edit.add", shown=shown))
        if rel[0] == OPTIONS:
            options.append(notes[-1])
    text = replace_spans(layout.text, patches)
    if inserts:
        lines = lines_of(text)
        last_untouched = max(inserts) + 1 < len(lines)
        for after in sorted(inserts, reverse=True):
            lines[after + 1:after + 1] = [ln + "\n" for ln in inserts[after]]
        text = keep_last_line(text, "".join(lines), last_untouched)
    return text, expected, EditPlan(text, notes=notes, repairs=repairs, options=options)
