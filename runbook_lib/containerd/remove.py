"""mode=remove: take out exactly what the runbook added to containerd's config, and nothing else.

What the runbook adds (edit.py, dropin.py): the runtime's table with its options sub-table (in the file that
owns the CRI runtimes), or the drop-in `conf.d/99-<runtime>.toml` it wrote (recognised by its first comment
line) plus the `imports` entry naming exactly that file. A runtime table is the runbook's when it holds what
the runbook writes (runtime_type io.containerd.runc.v2 and the wanted BinaryName); another owner's runtime
of the same name is left alone and reported.

The plan is in memory (new bytes per file, a diff, the files to retire) and safe_write commits it with a
backup. The removed lines are chosen so that the runbook's own edit of the result gives back the current text
exactly: when the runbook made the change and nothing else touched those lines, the result is the original
file byte for byte. Every result is also checked to read as the current data minus the runbook's part.
"""

from __future__ import annotations

import copy
from pathlib import Path

from runbook_lib.findings.errors import ConfigError
from runbook_lib.findings.messages import Msg
from runbook_lib.fs.plan import Plan
from runbook_lib.fs.safe_write import Committed, commit, plan_write, read_bytes, retire
from runbook_lib.findings.catalog import say
from runbook_lib.fs.target import Target
from runbook_lib.containerd.dropin import DROPIN_MARK, add_import, dropin_path
from runbook_lib.containerd.edit import OPTIONS, RuntimeWanted, plan_runtime, template_runtime
from runbook_lib.containerd.effective import Effective, load_effective
from runbook_lib.containerd.layout import scan
from runbook_lib.containerd.load import TomlFile, load_toml, reads_as, require_reads_as
from runbook_lib.containerd.tables import get_in
from runbook_lib.containerd.versions import RUNTIME_TYPE, detect_version, format_path, of, runtime_path
from runbook_lib.containerd.edit import default_runtime_name


def with_retired(target: Target, plan: Plan) -> Plan:
    """The plan with its retired files' current bytes, so its diff shows them going (+++ /dev/null)."""
    plan.retired = [plan_write(target, lab, b"") for lab in plan.retire]
    return plan


def is_runbooks_runtime(table, wanted: RuntimeWanted) -> bool:
    options = table.get(OPTIONS) if isinstance(table, dict) else None
    return isinstance(table, dict) and table.get("runtime_type") == RUNTIME_TYPE and isinstance(options, dict) \
        and options.get("BinaryName") == wanted.binary


def plan_remove(target: Target, config_path: str, wanted: RuntimeWanted, *,
                base: dict[str, bytes] | None = None) -> Plan:
    """The plan that takes the runbook's runtime out of ``config_path`` and its imports (both layouts).
    ``base`` holds planned bytes not on disk yet (another runtime's removal), so several removals compose."""
    plan = Plan()
    if _config_missing(target, config_path, base):  # containerd runs on its defaults: no runtime of ours in them
        plan.notes.append(say("containerd.remove.there_no_config_file", config_path=config_path))
        _retire_marked_dropin(target, config_path, wanted, plan)
        return with_retired(target, plan)
    eff = load_effective(target, config_path, overlay=base)
    overlay: dict[str, bytes] = {}
    drop = dropin_path(config_path, wanted.name)
    drop_file = eff.file(drop) or _read(target, drop)
    edited_dropin = False
    if drop_file is not None:
        if drop_file.text.startswith(DROPIN_MARK) and _holds_more_than_the_runtime(target, config_path, eff, drop,
                                                                                    wanted, base):
            edited_dropin = True  # its runtime table goes below, like any file's; the settings a person made stay
            plan.notes.append(say("containerd.remove.drop_holds_cri_settings", name=wanted.name, drop=drop))
        elif drop_file.text.startswith(DROPIN_MARK):
            plan.retire.append(drop)
            plan.notes.append(say("containerd.remove.retiring_drop_runbook_wrote_2", drop=drop))
            if drop in (eff.main.data.get("imports") or []):
                text = remove_import(eff.main, drop)
                overlay[config_path] = eff.main.encode(text)
                plan.notes.append(say("containerd.remove.removing_entry_runbook_added", config_path=config_path, drop=drop))
        else:
            plan.kept.append(say("containerd.remove.dropin_not_ours", drop=drop))
    for f in eff.files:
        if f.lab_path == drop and not edited_dropin:
            continue
        text = overlay.get(f.lab_path)
        current = load_toml(text, f.lab_path) if text is not None else f
        table = get_in(current.data, runtime_path(eff.version, wanted.name))
        if table is None:
            continue
        where = f"{f.lab_path}: [{format_path(runtime_path(eff.version, wanted.name))}]"
        if not is_runbooks_runtime(table, wanted):
            binary = get_in(table, (OPTIONS, "BinaryName")) if isinstance(table, dict) else None
            plan.kept.append(say("containerd.remove.not_what_runbook_writes", binary=binary or say("word.none"), where=where))
            continue
        rest = copy.deepcopy(eff.data)
        del get_in(rest, runtime_path(eff.version, wanted.name)[:-1])[wanted.name]
        template, source = template_runtime(rest, eff.version, wanted)
        new = remove_runtime_text(current, eff.version, wanted, template, source)
        plan.notes.append(say("containerd.remove.removing_runtime_table_options", where=where))
        new = _without_written_default(load_toml(current.encode(new), f.lab_path), eff, wanted, rest, plan) or new
        overlay[f.lab_path] = current.encode(new)
    for lab, new in overlay.items():
        plan.writes.append(plan_write(target, lab, new))
    if not plan.changed:
        plan.notes.append(say("containerd.remove.nothing_runbook_added_there"))
    return with_retired(target, plan)


def _without_written_default(f: TomlFile, eff: Effective, wanted: RuntimeWanted, rest: dict,
                             plan: Plan) -> str | None:
    """When the config had no runtimes, the runbook also wrote the default one as just
    `runtime_type = "io.containerd.runc.v2"` (containerd's built-in default is gone once any runtime table
    exists). That table goes too when it is the only runtime left, is exactly that, and taking it out is what
    the runbook's edit would put back."""
    default = default_runtime_name(rest, eff.version)
    runtimes = get_in(rest, runtime_path(eff.version, default)[:-1])
    if not isinstance(runtimes, dict) or list(runtimes) != [default] or runtimes[default] != {"runtime_type": RUNTIME_TYPE}:
        return None
    if get_in(f.data, runtime_path(eff.version, default)) is None:
        return None
    base = RuntimeWanted(default, "", False)
    try:
        text = remove_runtime_text(f, eff.version, base, {"runtime_type": RUNTIME_TYPE}, None, exact=True)
    except ConfigError:
        return None
    plan.notes.append(say("containerd.remove.also_removing_default_runtime", default=default))
    return text


def commit_remove(target: Target, plan: Plan, *, backup: bool = True) -> list[Committed | Path]:
    """Write the edited configs first (a crash then leaves an unused drop-in, never an import of a missing
    file), then retire the drop-in; returns what safe_write did (Committed, or the drop-in's backup path)."""
    done: list[Committed | Path] = [commit(w, backup=backup) for w in plan.writes]
    for lab in plan.retire:
        moved = retire(target, lab)
        if moved is not None:
            done.append(moved)
    return done


def confirm_removed(target: Target, config_path: str, wanted: RuntimeWanted) -> list[Msg]:
    """Read back: what of the runbook's part is still there (empty when the removal holds)."""
    left = []
    drop = dropin_path(config_path, wanted.name)
    f = _read(target, drop)
    # a drop-in kept for the settings a person made in it (plan_remove) is fine once the runtime is out of it
    holds = f is not None and f.text.startswith(DROPIN_MARK) and (
        get_in(f.data, runtime_path(detect_version(f.data, path=drop, empty=f.empty, text=f.text), wanted.name)) is not None)
    if holds:
        left.append(say("containerd.remove.drop_still_there", drop=drop))
    if _config_missing(target, config_path, None):
        return left
    eff = load_effective(target, config_path)
    if drop in (eff.main.data.get("imports") or []) and (f is None or holds):
        left.append(say("containerd.remove.imports_still_lists", drop=drop))
    if is_runbooks_runtime(get_in(eff.data, runtime_path(eff.version, wanted.name)), wanted):
        left.append(say("containerd.remove.config_containerd_reads_still", name=wanted.name))
    return left


def _without_runtime(data: dict, version: int, wanted: RuntimeWanted) -> dict:
    """``data`` without the runtime, and without a default runtime table that is exactly the one the runbook
    writes along with it (_without_written_default)."""
    out = copy.deepcopy(data)
    runtimes = get_in(out, runtime_path(version, wanted.name)[:-1])
    if isinstance(runtimes, dict):
        runtimes.pop(wanted.name, None)
        if runtimes.get(default_runtime_name(out, version)) == {"runtime_type": RUNTIME_TYPE}:
            runtimes.pop(default_runtime_name(out, version))
    return _pruned(out, runtime_path(version, wanted.name)[:-1])


def _holds_more_than_the_runtime(target: Target, config_path: str, eff: Effective, drop: str, wanted: RuntimeWanted,
                                 base: dict[str, bytes] | None) -> bool:
    """Would retiring the drop-in change what containerd reads beyond the runtime? For containerd 1.x the drop-in
    carries the whole CRI table and tells a person to change CRI settings there (an air-gapped node's
    sandbox_image mirror, say): retiring it would silently take those back."""
    if drop not in (eff.main.data.get("imports") or []):
        return False  # read through a glob the runbook did not write: retired as before
    main = eff.main.encode(remove_import(eff.main, drop))
    try:
        after = load_effective(target, config_path, overlay={**(base or {}), config_path: main})
    except ConfigError:
        return False
    def read(e: Effective) -> tuple:  # what containerd is told, whichever files tell it, but the runbook's part
        data = _without_runtime(e.data, e.version, wanted)
        cri = get_in(data, of(e.version).cri_plugin)
        for key in of(e.version).cdi_keys if isinstance(cri, dict) else ():  # enable_cdi=True writes these in the drop-in
            cri.pop(key, None)
        return e.version, {k: v for k, v in data.items() if k not in ("imports", "version")}
    return read(after) != read(eff)


def _config_missing(target: Target, config_path: str, base: dict[str, bytes] | None) -> bool:
    return (base or {}).get(config_path) is None and read_bytes(target.resolve(config_path), shown=config_path) is None


def _retire_marked_dropin(target: Target, config_path: str, wanted: RuntimeWanted, plan: Plan) -> None:
    """The runbook's drop-in, left behind with no config to import it (someone removed config.toml)."""
    drop = dropin_path(config_path, wanted.name)
    f = _read(target, drop)
    if f is not None and f.text.startswith(DROPIN_MARK):
        plan.retire.append(drop)
        plan.notes.append(say("containerd.remove.retiring_drop_runbook_wrote", drop=drop))


def _read(target: Target, lab_path: str) -> TomlFile | None:
    """A drop-in the runbook may have written, or None. Its folder being a file (conf.d made by mistake) means
    there is none: the runbook never wrote one there, and a removal has nothing to refuse."""
    host = target.resolve(lab_path)
    if host.parent.exists() and not host.parent.is_dir():
        return None
    raw = read_bytes(host)
    return load_toml(raw, lab_path) if raw is not None else None


# --- the runtime's lines ------------------------------------------------------------------------------


def remove_runtime_text(f: TomlFile, version: int, wanted: RuntimeWanted, template: dict, source: str | None,
                        *, exact: bool = False) -> str:
    """``f``'s text without the runtime's table and its sub-tables, and the blank lines the runbook put with
    them: of the candidate texts, the one the runbook's edit (plan_runtime with ``template``/``source``, as
    the apply made it) turns back into the current text. Without such a candidate: the block and the blank
    lines before it, or, with ``exact``, ConfigError."""
    path = runtime_path(version, wanted.name)
    layout = scan(f.text)
    header = layout.header_for(path)
    if header is None or any(kv.full_path()[:len(path)] == path and kv.table[:len(path)] != path
                             for kv in layout.keyvalues):
        raise ConfigError.of("config.unreadable.not_written_section_tables_2", path=f.lab_path, at=format_path(path))
    lines = layout.lines
    start, end = header.line, layout.subtree_end(header)
    stray = [h for h in layout.headers if h.path[:len(path)] == path and not (start <= h.line <= end)]
    if stray:
        raise ConfigError.of("config.unreadable.sub_tables_elsewhere_too", path=f.lab_path, line=stray[0].line + 1, at=format_path(path), value=stray[0].line + 1)
    # comment lines right after the block belong to what follows it (subtree_end stops before them)
    before = _blank_run(lines, start - 1, -1)
    after = _blank_run(lines, end + 1, 1)
    expected = copy.deepcopy(f.data)
    node = get_in(expected, path[:-1])
    del node[path[-1]]
    pruned = _pruned(expected, path[:-1])  # `runtimes` existed only as the runtime's parent
    fallback = None
    for i, j in sorted(((i, j) for i in range(before + 1) for j in range(after + 1)), key=lambda ij: -(ij[0] + ij[1])):
        candidate = "".join(lines[:start - i] + lines[end + 1 + j:])
        if not (reads_as(candidate, expected) or reads_as(candidate, pruned)):
            continue
        fallback = fallback or (candidate if j == 0 or start - i == 0 else None)
        try:
            again = plan_runtime(candidate, expected, version, wanted, template, lab_path=f.lab_path,
                                 source_name=source).text
        except ConfigError:
            continue
        if again == f.text:
            return candidate
    if exact:
        raise ConfigError(say("containerd.remove.not_runbook_wrote_kept"), path=f.lab_path)
    candidate = fallback or "".join(lines[:start - before] + lines[end + 1:])
    if not reads_as(candidate, pruned):
        require_reads_as(candidate, expected, f.lab_path, say("containerd.remove.delete_table_hand"))
    return candidate


def _pruned(data: dict, path: tuple[str, ...]) -> dict:
    """``data`` without the tables along ``path`` that are left empty (deepest first)."""
    out = copy.deepcopy(data)
    for n in range(len(path), 0, -1):
        parent = get_in(out, path[:n - 1]) if n > 1 else out
        if isinstance(parent, dict) and parent.get(path[n - 1]) == {}:
            del parent[path[n - 1]]
        else:
            break
    return out


def _blank_run(lines: list[str], i: int, step: int) -> int:
    n = 0
    while 0 <= i < len(lines) and not lines[i].strip():
        n += 1
        i += step
    return n


# --- the imports entry ---------------------------------------------------------------------------------


def remove_import(main: TomlFile, entry: str) -> str:
    """``main``'s text without the ``entry`` of `imports` that dropin.add_import added: the candidate that
    add_import turns back into the current text, else the plain removal of the item; verified by re-parsing."""
    layout = scan(main.text)
    kv = layout.keyvalue(("imports",))
    if kv is None or kv.table != ():
        return main.text
    imports = list(main.data.get("imports") or [])
    rest = [i for i in imports if i != entry]
    expected = {**main.data, "imports": rest}
    lines = layout.lines
    candidates = []
    if not rest:  # add_import wrote the whole line (and maybe one blank line after it)
        expected_no_key = {k: v for k, v in main.data.items() if k != "imports"}
        for extra in (1, 0):
            blank = kv.end_line + 1 < len(lines) and not lines[kv.end_line + 1].strip()
            if extra and not blank:
                continue
            candidates.append(("".join(lines[:kv.line] + lines[kv.end_line + 1 + extra:]), expected_no_key))
    raw = layout.value_text(kv)
    for item in (f'"{entry}"', f"'{entry}'"):
        for old, new in ((f", {item}", ""), (f",{item}", ""), (f"{item}, ", ""), (f"{item},", ""), (item, ""),
                         (f",\n{_indent_of(raw, item)}{item},", ""), (f",\n{_indent_of(raw, item)}{item},", ","),
                         (f"\n{_indent_of(raw, item)}{item},", "")):
            if old and old in raw:
                cand_raw = raw.replace(old, new, 1)
                candidates.append((main.text[:kv.value_start] + cand_raw + main.text[kv.value_end:], expected))
    fallback = None
    for text, want in candidates:
        if not reads_as(text, want):
            continue
        fallback = fallback or text
        try:
            if add_import(load_toml(text.encode(), main.lab_path), entry) == main.text:
                return text
        except ConfigError:
            continue
    if fallback is None:
        raise ConfigError.of("config.unreadable.cannot_taken_out_imports", path=main.lab_path, line=kv.line + 1, entry=entry)
    return fallback


def _indent_of(raw: str, item: str) -> str:
    at = raw.find(item)
    if at < 0:
        return ""
    line_start = raw.rfind("\n", 0, at) + 1
    return raw[line_start:at] if not raw[line_start:at].strip() else ""


__all__ = ["with_retired", "plan_remove", "commit_remove", "confirm_removed", "remove_runtime_text", "remove_import",
           "is_runbooks_runtime", "DROPIN_MARK"]
