"""layout=dropin: the runtime goes into `<config dir>/conf.d/99-<runtime>.toml`, and config.toml only gains an
`imports` entry for it (for containerd 2.x, and for nodes whose main config is managed by something else).

What the drop-in holds is chosen so that containerd's merge cannot lose another runtime (see effective.py):
- version 1/2 (containerd 1.x replaces a whole plugin table per imported file): the complete effective CRI
  plugin table plus the runtime, and `version` equal to the version containerd uses now — a drop-in's version
  overrides in 1.x, and `version = 2` over a version-1 main file would make containerd ignore its tables.
- version 3 and 4 (containerd 2.x merges key by key): only the runtime's table, under the root file's own
  version (see dropin_version: a drop-in without a version would be read as version 1 and migrated, and
  containerd 2.3.0-2.3.4 refuse to start when a drop-in's version is higher than the root's).
The plan is verified on the effective config computed with the planned bytes before anything is written.
"""

from __future__ import annotations

import copy
import posixpath

from runbook_lib.findings.errors import ConfigError, RunbookError
from runbook_lib.findings.messages import Msg, bilingual
from runbook_lib.fs.plan import Plan
from runbook_lib.fs.safe_write import plan_write
from runbook_lib.findings.catalog import say
from runbook_lib.fs.target import Target
from runbook_lib.containerd import diagnose, render
from runbook_lib.containerd.edit import OPTIONS, RuntimeWanted, default_runtime_name, template_runtime
from runbook_lib.containerd.effective import Effective, MERGE_1X, load_effective, locate
from runbook_lib.containerd.layout import scan
from runbook_lib.containerd.load import TomlFile, require_reads_as
from runbook_lib.containerd.owner import require_not_foreign
from runbook_lib.containerd.splice import keep_last_line, lines_of
from runbook_lib.containerd.versions import RUNTIME_TYPE, detect_version, of, runtimes_path
from runbook_lib.containerd.tables import get_in
from runbook_lib.findings.problem import Problem
from runbook_lib.fs.safe_write import read_bytes
from runbook_lib.containerd.load import decode_text

DROPIN_DIR = "conf.d"


def dropin_path(config_path: str, runtime_name: str) -> str:
    return posixpath.join(posixpath.dirname(config_path), DROPIN_DIR, f"99-{runtime_name}.toml")


def dropin_imported(target: Target, config_path: str, runtime_name: str) -> str | None:
    """The entry of the config's imports that reads the runtime's drop-in path (containerd 2.x's own default
    config imports "/etc/containerd/conf.d/*.toml"), or None: a config that cannot be read imports nothing."""
    import fnmatch
    path = dropin_path(config_path, runtime_name)
    try:
        eff = load_effective(target, config_path, overlay={path: b""})
    except RunbookError:
        return None
    if path not in [f.lab_path for f in eff.files]:
        return None
    entries = [i for i in (eff.main.data.get("imports") or []) if isinstance(i, str)]
    return next((i for i in entries if fnmatch.fnmatchcase(path, i if i.startswith("/") else
                                                           posixpath.join(posixpath.dirname(config_path), i))),
                entries[0] if entries else path)


def plan_dropin(target: Target, p, eff: Effective, wanted: RuntimeWanted, *,
                replace_runtime: bool | None = None) -> Plan:
    """``replace_runtime`` (default: the parameter of that name when ``p`` has it, else False) allows
    rewriting another owner's runtime of the same name (owner.py); without it that raises."""
    if replace_runtime is None:
        replace_runtime = bool(getattr(p, "replace_runtime", False))
    require_not_foreign(eff, wanted.name, wanted.binary, replace_runtime=replace_runtime, target=target)
    path = dropin_path(p.config_path, p.runtime_name)
    existing = eff.file(path) or _on_disk(target, path)
    foreign = existing is not None and not existing.text.startswith(DROPIN_MARK)
    if _registered(eff, p):
        # Already registered correctly (in config.toml, elsewhere, in another tool's file at this path, or in our
        # own drop-in, which a person may have edited as it invites them to: its comments and layout are theirs
        # now): rendering the drop-in again would change a working node for nothing.
        where = locate(eff, runtimes_path(eff.version) + (p.runtime_name,))[0]
        if eff.file(path) is not None:
            return Plan(folder=posixpath.dirname(path), message=say(
                "dropin.runtime_already_registered_correctly_2", runtime_name=p.runtime_name, where=where))
        return Plan(folder=posixpath.dirname(path), message=say(
            "dropin.runtime_already_registered_correctly", runtime_name=p.runtime_name, where=where))
    if foreign:  # another tool's file at the runbook's path (nvidia-ctk writes conf.d/99-nvidia.toml too)
        q = _not_ours(path, p, existing.text)
        raise ConfigError(q.what, q.fix, path=path, line=q.line, code=q.code, excerpt=q.excerpt)
    data, source, notes = dropin_data(eff, wanted, replace_runtime=replace_runtime)
    text = _comment(eff) + render_document(data, render.quote_style(eff.main.text), _indent_step(eff.main.text))
    _verify(text, data, path)
    dropin_new = text.encode()
    probe = load_effective(target, p.config_path, overlay={path: dropin_new})
    main_text = eff.main.text
    if path not in [f.lab_path for f in probe.files]:
        main_text = add_import(eff.main, path)
        notes.append(say("dropin.add_imports", config_path=p.config_path, at=path))
    else:
        notes.append(say("dropin.s_imports_already_cover", config_path=p.config_path, at=path))
    main_new = eff.main.encode(main_text)
    after = load_effective(target, p.config_path, overlay={path: dropin_new, p.config_path: main_new})
    _require_kept(eff, after, p, path)
    writes = [plan_write(target, path, dropin_new, mode=0o644), plan_write(target, p.config_path, main_new)]
    if source:
        notes.append(say("dropin.new_runtime_starts_copy", source=source))
    if eff.merge == MERGE_1X:
        notes.append(say("dropin.containerd_x_replaces_whole", config_path=p.config_path, at=path))
    message = say("dropin.write_runtime_drop", at=path, runtime_name=p.runtime_name)
    return Plan(message, writes=writes, notes=notes, folder=posixpath.dirname(path))


DROPIN_MARK = "# runbook (layout=dropin)"  # the first line of every drop-in the runbook writes (_comment; remove.py)


def foreign_dropin_problems(eff: Effective, p) -> list:
    """layout=dropin, and the drop-in's path holds another tool's file (read through an import) whose runtime is
    not the one wanted: the plan refuses (plan_dropin), and so does the verdict, with the same finding."""
    path = dropin_path(p.config_path, p.runtime_name)
    f = eff.file(path)
    if f is None or f.text.startswith(DROPIN_MARK) or _registered(eff, p):
        return []
    return [_not_ours(path, p, f.text)]


def _not_ours(path: str, p, text: str):
    """The finding for another tool's file at the drop-in's path, its first line shown: plan and verdict alike."""
    return Problem.of("dropin.not_ours", path, 1, excerpt=(text.splitlines() or [""])[0], dropin=path,
                      config=p.config_path, runtime=p.runtime_name)


def _on_disk(target: Target, lab_path: str) -> TomlFile | None:
    """The drop-in's file when it is there but no import reads it (then it is not in the effective config)."""
    raw = read_bytes(target.resolve(lab_path), shown=lab_path)
    if raw is None:
        return None
    text, bom, crlf = decode_text(raw, lab_path)
    return TomlFile(lab_path, text, {}, bom, crlf)


def _registered(eff: Effective, p) -> bool:
    try:
        diagnose.require_runtime(eff, p, p.config_path)
    except ConfigError:
        return False
    return True


def dropin_version(eff: Effective) -> int:
    """The `version` a drop-in written now carries: the root file's (containerd 2.x, where a higher one stops
    2.3.0-2.3.4 and a lower one is migrated); for containerd 1.x the version the merge ends with, because there
    a drop-in's version overrides and a lower one would make containerd read every table differently."""
    if eff.merge == MERGE_1X:
        return eff.version
    return detect_version(eff.main.data, path=eff.main.lab_path, empty=eff.main.empty, text=eff.main.text)


def dropin_data(eff: Effective, wanted: RuntimeWanted, *, replace_runtime: bool = False) -> tuple[dict, str | None, list[Msg]]:
    """The drop-in's content as data: (data, template source, notes). Raises owner.RuntimeOwnedElsewhere for
    another owner's runtime of that name unless ``replace_runtime``."""
    require_not_foreign(eff, wanted.name, wanted.binary, replace_runtime=replace_runtime)
    version, notes = dropin_version(eff), []
    runtimes = copy.deepcopy(get_in(eff.data, runtimes_path(version)) or {})
    current = runtimes.get(wanted.name)
    source = None
    if isinstance(current, dict):
        table = copy.deepcopy(current)
        table["runtime_type"] = RUNTIME_TYPE
        table[OPTIONS] = {**(table.get(OPTIONS) if isinstance(table.get(OPTIONS), dict) else {}),
                          "BinaryName": wanted.binary, "SystemdCgroup": wanted.systemd_cgroup}
    else:
        table, source = template_runtime(eff.data, version, wanted)
    own = {wanted.name: table}
    default = default_runtime_name(eff.data, version)
    if default != wanted.name and not isinstance(runtimes.get(default), dict):
        # As in-place: once any runtime table exists, containerd 1.6's built-in default runtime is gone.
        own = {default: {"runtime_type": RUNTIME_TYPE}, **own}
        notes.append(say("dropin.config_no_table_default", default=default))
    plugin = of(version).plugin_id
    # 1.x: the whole effective CRI table, which the drop-in's replaces; 2.x: only the runtimes, merged key by key
    cri = copy.deepcopy(eff.data.get("plugins", {}).get(plugin) or {}) if eff.merge == MERGE_1X else {}
    node = cri
    for part in of(version).runtimes_path[len(of(version).cri_plugin):]:
        node = node.setdefault(part, {})
    node.update(own)
    return {"version": version, "plugins": {plugin: cri}}, source, notes


def _require_kept(before: Effective, after: Effective, p, path: str) -> None:
    """The runtime is there, no other runtime was lost and the default did not move."""
    if path not in [f.lab_path for f in after.files]:
        raise ConfigError.of("config.unreadable.even_imports_entry_containerd", path=path, at=path, config_path=p.config_path)
    diagnose.require_runtime(after, p, path)
    lost = sorted(set(get_in(before.data, runtimes_path(before.version)) or {}) -
                  set(get_in(after.data, runtimes_path(after.version)) or {}))
    moved = default_runtime_name(before.data, before.version) != default_runtime_name(after.data, after.version)
    if lost or moved or after.version != before.version:
        raise ConfigError.of("config.unreadable.drop_would_change_what", path=path, lost=lost or say("word.none"),
                             moved=say("word.yes" if moved else "word.no"))


# --- the imports entry in config.toml --------------------------------------------------------------------


def add_import(main: TomlFile, entry: str) -> str:
    """config.toml's text with ``entry`` appended to `imports` (created before the first table if missing),
    in the file's quoting style; verified by re-parsing."""
    text = main.text
    layout = scan(text)
    literal = render.quote_style(text) == "'"
    item = render.value(entry, literal=literal)
    kv = layout.keyvalue(("imports",))
    if kv is not None and kv.table == ():
        raw = layout.value_text(kv)
        new = _append_item(raw, item, kv.indent)
        if new is None:
            raise ConfigError.of("config.unreadable.imports_array_laid_out", path=main.lab_path, line=kv.line + 1, item=item)
        text = text[:kv.value_start] + new + text[kv.value_end:]
    else:
        lines = lines_of(layout.lines)
        top = [k for k in layout.keyvalues if k.table == ()]
        if top:  # after the last top-level key: every top-level key precedes the first table
            at = max(k.end_line for k in top) + 1
            block = [f"imports = [{item}]\n"]
        else:
            at = min([h.line for h in layout.headers] or [len(lines)])
            while at > 0 and lines[at - 1].lstrip().startswith("#"):
                at -= 1  # keep a comment with the table it describes
            block = [f"imports = [{item}]\n"] + (["\n"] if at < len(lines) and lines[at].strip() else [])
        text = keep_last_line(text, "".join(lines[:at] + block + lines[at:]), at < len(lines))
    expected = {**main.data, "imports": list(main.data.get("imports") or []) + [entry]}
    _verify(text, expected, main.lab_path)
    return text


def _append_item(raw: str, item: str, indent: str) -> str | None:
    inner = raw[1:-1]
    if not inner.strip():
        return f"[{item}]"
    if "#" in raw:
        return None
    if "\n" not in raw:
        body = inner.rstrip()
        comma = "" if body.endswith(",") else ","
        return f"[{body}{comma} {item}{inner[len(body):]}]"
    lines = raw.split("\n")
    if lines[-1].strip() != "]" or lines[0].strip() != "[":
        return None
    last = max(i for i, ln in enumerate(lines[:-1]) if ln.strip())
    if last == 0:
        return None
    if not lines[last].rstrip().endswith(","):
        lines[last] = lines[last].rstrip() + ","
    item_indent = lines[last][: len(lines[last]) - len(lines[last].lstrip())]
    lines.insert(last + 1, f"{item_indent}{item},")
    return "\n".join(lines)


# --- rendering the drop-in -------------------------------------------------------------------------------


def mark_line() -> str:
    """The first line of every drop-in the runbook writes: the mark, then who wrote the file, in both languages.
    A file is the runbook's when it starts with the mark alone, whatever the words after it say."""
    return f"{DROPIN_MARK} {bilingual(say('dropin.comment.written_by'))}"


def _comment(eff: Effective) -> str:
    why = say("dropin.comment.merge_1x" if eff.merge == MERGE_1X else "dropin.comment.merge_2x")
    return "\n".join([mark_line()] + [f"# {line}" for line in str(why).split("\n")]) + "\n\n"


def _indent_step(text: str) -> str:
    return "  " if any(h.indent for h in scan(text).headers) else ""


def render_document(data: dict, quote: str = '"', step: str = "  ") -> str:
    """TOML for ``data``: scalars first, then sub-tables, each header indented by its depth like containerd's
    own `config default`, keys and strings in the main file's quoting style."""
    lines: list[str] = []
    _emit(lines, [], (), data, quote == "'", quote, step)
    return "\n".join(lines).strip("\n") + "\n"


def _emit(lines, raw_path, path, table, literal, quote, step) -> None:
    scalars = {k: v for k, v in table.items() if not isinstance(v, dict) and not _is_aot(v)}
    key_indent = step * len(path) if path else ""
    if path and (scalars or not any(isinstance(v, dict) or _is_aot(v) for v in table.values())):
        lines += ["", f"{step * (len(path) - 1)}{render.header(raw_path)}"]
    for k, v in scalars.items():
        lines.append(f"{key_indent}{render.key(k, quote)} = {render.value(v, literal=literal)}")
    for k, v in table.items():
        sub = raw_path + [render.key(k, quote)]
        if isinstance(v, dict):
            _emit(lines, sub, path + (k,), v, literal, quote, step)
        elif _is_aot(v):
            for item in v:
                lines += ["", f"{step * len(path)}{render.header(sub, array=True)}"]
                for ik, iv in item.items():  # nested tables inside an array of tables are written inline
                    lines.append(f"{step * (len(path) + 1)}{render.key(ik, quote)} = {render.value(iv, literal=literal)}")


def _is_aot(v) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(i, dict) for i in v)


def _verify(text: str, expected: dict, lab_path: str) -> None:
    require_reads_as(text, expected, lab_path,
                     say("dropin.run_layout_inplace_report"))