"""What is wrong with a containerd config, as verdicts a student can act on: what, where (file, line), why it
matters, and the exact line to write. The behaviours cited are those observed with containerd 1.6 (see
tests/fixtures/broken/README.md, pinned by tests against the real program)."""

from __future__ import annotations

import posixpath

from runbook_lib.findings.errors import ConfigError
from runbook_lib.k8s.names import closest as _closest
from runbook_lib.containerd import reads_2x, releases, render
from runbook_lib.containerd.releases import RuntimeKeys
from runbook_lib.findings.problem import Problem, say
from runbook_lib.containerd.edit import cgroup_as_read, default_runtime_name
from runbook_lib.containerd.default_rule import DefaultRule, names_a_runtime
from runbook_lib.containerd.effective import Effective, MERGE_1X, import_path, locate
from runbook_lib.containerd.layout import scan
from runbook_lib.containerd.load import TomlFile
from runbook_lib.containerd.spelling import case_variants
from runbook_lib.containerd.versions import EMPTY_FILE_VERSION, NO_VERSION_LINE, RUNTIME_TYPE, VERSIONS, of, plugin_uri, runtime_path, runtimes_path, v2_style_tables_without_version
from runbook_lib.containerd.tables import get_in
from runbook_lib.containerd.edit import RuntimeWanted, inline_table_problem
from runbook_lib.containerd.versions import _version_line

BOOL_OPTIONS = ("SystemdCgroup", "NoPivotRoot", "NoNewKeyring")


def header_text(eff: Effective, path: tuple[str, ...]) -> str:
    return render.header([render.key(p, render.quote_style(eff.main.text)) for p in path])


def owner_file(eff: Effective, runtime_name: str) -> TomlFile:
    """The file to edit so that the runtime ends up in the effective config."""
    plugin = of(eff.version).plugin_id
    if eff.merge == MERGE_1X:
        return eff.owner_of_plugin(plugin)
    owner = eff.main
    for f in eff.files:
        if get_in(f.data, runtimes_path(eff.version)) is not None:
            owner = f
    return owner


def blockers(eff: Effective, p, *, strays: bool = True) -> list[Problem]:
    """States in which writing the runtime would be a guess or would not work: apply stops, writing nothing.
    ``strays=False`` when a stray runtime table is about to be moved (repair.py), so it blocks nothing."""
    out = []
    disabled = eff.data.get("disabled_plugins") or []
    hit = [d for d in disabled if d in of(eff.version).cri_disabled_by]
    if hit:
        path, line = locate(eff, ("disabled_plugins",))
        out.append(Problem.of("containerd.cri_disabled", path, line, plugin=hit[0], fixed=_disabled_line(disabled, hit)))
    if v2_style_tables_without_version(eff.main.data):
        out.append(Problem.of("config.version_missing_v2_tables", eff.main.lab_path, 1))
    for path_, file_, line in stray_runtime_tables(eff, p.runtime_name) if strays else []:
        out.append(_stray_problem(eff, p.runtime_name, path_, file_, line))
    out += plugin_key_problems(eff, p)
    # a version-3 header for the runtime in a version-2 file is one mistake, the stray table said above: "tables
    # under both names" at that same line would add a second finding, advising to delete the tables the node's
    # containerd does not read (which a student could take for runc's)
    strayed = {(q.path, q.line) for q in out if q.code.startswith("runtime.misplaced")}
    out += [q for q in reads_2x.problems(eff.files, _own_version) if (q.path, q.line) not in strayed]
    for missing in eff.missing_imports:
        out.append(Problem.of("config.import_missing", eff.main.lab_path, missing=missing))
    out += relative_glob_problems(eff)
    if getattr(p, "layout", "inplace") != "dropin":  # layout=dropin: dropin.foreign_dropin_problems, for the step
        out += inline_table_problems(eff, p)
    return out


def _own_version(f: TomlFile) -> int:
    """The version a file says for itself, as containerd reads it (no version line: 1, an empty file: 2)."""
    v = f.data.get("version")
    return v if isinstance(v, int) and not isinstance(v, bool) and v else (EMPTY_FILE_VERSION if f.empty else NO_VERSION_LINE)


def inline_table_problems(eff: Effective, p) -> list[Problem]:
    """What step 2 would have to add but cannot, because the way is an inline table (edit.inline_table_problem):
    the runtime's table, or one of the runbook's settings missing from an existing runtime."""
    path = runtime_path(eff.version, p.runtime_name)
    owner = owner_file(eff, p.runtime_name)
    if get_in(eff.data, path) is None:
        found = inline_table_problem(owner.text, path, owner.lab_path)
        return [found] if found is not None else []
    layout = scan(owner.text)
    for rel, want in RuntimeWanted(p.runtime_name, p.binary_name, p.systemd_cgroup).settings().items():
        full = path + rel
        if get_in(owner.data, full) is None and layout.keyvalue(full) is None:
            found = inline_table_problem(owner.text, full, owner.lab_path, f"{'.'.join(rel)} = {render.value(want)}")
            if found is not None:
                return [found]
    return []


def version_line(eff: Effective) -> int | None:
    """1-based line of the main file's top-level `version` key."""
    return _version_line(eff.main.text)


def relative_glob_problems(eff: Effective) -> list[Problem]:
    """A relative glob in `imports` of a version-1/2 config that matches files: containerd 1.6.29+ / 1.7.16+
    read them from the importing file's folder, older releases (Debian 12's 1.6.20) from their working
    directory (`/` under systemd), so they silently read none of them. Which runtime containerd gets would
    depend on its release, so the runbook stops and asks for the absolute path (effective._resolve_imports)."""
    if eff.merge != MERGE_1X:
        return []
    out = []
    for parent, item, matches in eff.relative_globs:
        if not matches:
            continue
        f = eff.file(parent)
        line, col = _import_entry_position(f.text, item) if f is not None else (None, None)
        absolute = import_path(parent, item)
        out.append(Problem.of("config.import_relative_glob", parent, line, col=col, entry=item, absolute=absolute,
                              matches=", ".join(matches)))
    return out


def import_cycle_problems(eff: Effective) -> list[Problem]:
    """Each `imports` entry that leads back to a file already read on its way (itself, a file that imported it,
    through `..` or a glob): containerd skips it (each file once), so it is a warning, named at its entry."""
    out = []
    for cycle in eff.import_cycles:
        f = eff.file(cycle.importer)
        line, col = _import_entry_position(f.text, cycle.entry) if f is not None else (None, None)
        out.append(Problem.of("config.import_cycle", cycle.importer, line, col=col, importer=cycle.importer, entry=cycle.entry,
                              target=cycle.target, chain=" → ".join(cycle.chain)))
    return out


def _import_entry_position(text: str, item: str) -> tuple[int | None, int | None]:
    """1-based (line, column) of an `imports` entry's opening quote, or the imports line."""
    layout = scan(text)
    kv = layout.keyvalue(("imports",))
    if kv is None:
        return None, None
    start = kv.value_start
    for quoted in (render.value(item), f"'{item}'"):
        at = text.find(quoted, kv.value_start, kv.value_end)
        if at >= 0:
            start = at
            break
    line = text.count("\n", 0, start)
    return line + 1, start - (text.rfind("\n", 0, start) + 1) + 1


def plugin_key_problems(eff: Effective, p) -> list[Problem]:
    """A version-2/3 file whose `plugins` table has a key that is not a plugin URI (`cri`, or `io` from an
    unquoted header): containerd 1.x refuses the whole file ('invalid plugin key URI'), so it will not start.
    Keys that only hold a stray runtime table are left to that more specific verdict."""
    if not of(eff.version).plugin_keys_are_uris or v2_style_tables_without_version(eff.main.data):
        return []
    stray_keys = {path[1] for path, _, _ in stray_runtime_tables(eff, p.runtime_name) if len(path) > 1}
    out = []
    for key in _plugin_keys_by_their_own_version(eff):
        if len(key.split(".")) >= 4 or key in stray_keys:
            continue
        file_, line = _first_header_under(eff, ("plugins", key))
        uri = plugin_uri(key)  # a version-1 plugin ID, for the fix line: the URI containerd renames it to
        out.append(Problem.of("config.plugin_key_v1_name" if uri else "config.plugin_key_unquoted", file_, line,
                              key=key, uri=uri, version=eff.version))
    return out


def _plugin_keys_by_their_own_version(eff: Effective) -> list[str]:
    """The `plugins` keys to judge as URIs. containerd 2.x migrates each imported file from its own version
    (a version-1 drop-in's `cri` and `linux` are its plugin IDs, renamed as 2.x reads it: gVisor's snippet in
    conf.d under a version-3 config), so a file is judged by the version it says for itself; 1.x merges the
    files' tables first, and the effective config's version rules them all."""
    if eff.merge == MERGE_1X:
        return list(eff.data.get("plugins") or {})
    keys: dict[str, None] = {}
    for f in eff.files:
        if f is eff.main or of(_own_version(f)).plugin_keys_are_uris:
            keys.update(dict.fromkeys(f.data.get("plugins") or {}))
    return list(keys)


def _first_header_under(eff: Effective, prefix: tuple[str, ...]) -> tuple[str, int | None]:
    for f in eff.files:
        line = scan(f.text).first_line_under(prefix)  # a header, or dotted keys or an inline table
        if line is not None:
            return f.lab_path, line + 1
    return eff.main.lab_path, None


def _disabled_line(disabled: list, hit: list) -> str:
    keep = [d for d in disabled if d not in hit]
    return f"disabled_plugins = [{', '.join(render.value(d) for d in keep)}]"


def stray_runtime_tables(eff: Effective, name: str) -> list[tuple[tuple[str, ...], str, int | None]]:
    """Tables named like the runtime that sit where containerd does not look for them."""
    right = runtime_path(eff.version, name)
    out = []
    if v2_style_tables_without_version(eff.main.data):
        return out  # every version-2 table is "misplaced" then; the missing version line is the one verdict
    for f in eff.files:
        for path, line in runtime_definitions(f.text, name):
            if path != right and path[0] == "plugins":
                out.append((path, f.lab_path, line + 1))
    return out


def runtime_definitions(text: str, name: str) -> list[tuple[tuple[str, ...], int]]:
    """(the runtime's table path, its first 0-based line) for every place a file defines the runtime, in each of
    TOML's spellings of one table, which containerd reads alike: a `[...runtimes.<name>]` header (or a header
    below it, `[...runtimes.<name>.options]`), dotted keys (`containerd.runtimes.<name>.runtime_type = ...` under
    any header) and an inline table (`<name> = {...}` under `[...runtimes]`)."""
    layout = scan(text)
    found: dict[tuple[str, ...], int] = {}
    for path, line in [(h.path, h.line) for h in layout.headers if not h.is_array] + \
            [(kv.full_path(), kv.line) for kv in layout.keyvalues]:
        for i in range(len(path) - 1):
            if path[i] == "runtimes" and path[i + 1] == name:
                found[path[:i + 2]] = min(found.get(path[:i + 2], line), line)
                break
    return sorted(found.items(), key=lambda item: item[1])


def _stray_problem(eff: Effective, name: str, path, file_, line) -> Problem:
    right = runtime_path(eff.version, name)
    shown = _raw_header(eff, file_, line) or header_text(eff, path)
    if len(path) > 1 and path[1] == "io":
        code = "runtime.misplaced.unquoted_header"
    else:  # an older version's runtime path in this file (version 1's plugins.cri, version 2's grpc.v1.cri)
        older = [v for v in VERSIONS.values() if v.number < eff.version and v.misplaced_code is not None
                 and path[:len(v.cri_plugin)] == v.cri_plugin]
        code = older[0].misplaced_code if older else "runtime.misplaced"
    return Problem.of(code, file_, line, shown=shown, version=eff.version, header=header_text(eff, right),
                      options_header=header_text(eff, right + ("options",)), key=".".join(path))


def _raw_header(eff: Effective, file_: str, line: int | None) -> str | None:
    """The header exactly as the student wrote it (a decoded path would hide the missing quotes)."""
    f = eff.file(file_)
    if f is None or not line:
        return None
    return f.text.split("\n")[line - 1].strip()


def require_runtime(after: Effective, p, lab_path: str) -> None:
    table = get_in(after.data, runtime_path(after.version, p.runtime_name))
    ok = isinstance(table, dict) and table.get("runtime_type") == RUNTIME_TYPE and isinstance(table.get("options"), dict) \
        and table["options"].get("BinaryName") == p.binary_name and cgroup_as_read(table["options"]) is p.systemd_cgroup
    if not ok:
        raise ConfigError.of("runtime.not_effective", path=lab_path, lab_path=lab_path)


def cgroup_disagreement(eff: Effective, p) -> Problem | None:
    """The runtime's SystemdCgroup differs from the default runtime's: a warning in apply and check mode alike
    (docs/GUARANTEES.md says why it is not an error: the parameter states the kubelet's driver)."""
    default = default_runtime_name(eff.data, eff.version)
    path = runtime_path(eff.version, p.runtime_name) + ("options", "SystemdCgroup")
    base = get_in(eff.data, runtime_path(eff.version, default) + ("options", "SystemdCgroup"))
    mine = get_in(eff.data, path)
    if default != p.runtime_name and base is None and mine is True and _runs_runc_v2(eff, default):
        # not written: the runc shim's default, false (cgroupfs), whatever `systemd_cgroup` the CRI table has
        where, line = locate(eff, path)
        return Problem.of("options.systemd_cgroup.default_unset", where, line, runtime=p.runtime_name, default=default,
                          key="options.SystemdCgroup",
                          header=header_text(eff, runtime_path(eff.version, default) + ("options",)))
    mine = False if mine is None else mine  # left out: containerd's zero value
    if default == p.runtime_name or not isinstance(base, bool) or not isinstance(mine, bool) or base is mine:
        return None
    where, line = locate(eff, path)
    return Problem.of("options.systemd_cgroup.differs_from_default", where, line, runtime=p.runtime_name,
                      value=render.value(mine), default=default, base=render.value(base), key="options.SystemdCgroup")


def _runs_runc_v2(eff: Effective, name: str) -> bool:
    """The runtime is the runc shim's (runtime_type io.containerd.runc.v2), or containerd's built-in runc."""
    runtimes = get_in(eff.data, runtimes_path(eff.version))
    table = runtimes.get(name) if isinstance(runtimes, dict) else None
    if table is None:
        return name == "runc" and not runtimes
    return isinstance(table, dict) and table.get("runtime_type") == RUNTIME_TYPE


def default_problem(eff: Effective, p, rule: DefaultRule) -> Problem | None:
    """The run's default rule (containerd/default_rule.py) on the effective config, said as a finding at its line:
    default_runtime_name names the runtime (the lab's rule: every pod would go through it), or no runtime at all
    (both worlds: a typo such as "rnuc" or "runc " makes containerd's CRI plugin refuse to load, 'no corresponding
    runtime configured in containerd.runtimes'). Only the built-in runc, which step 2 writes when it is missing, is
    not a guess. ``rule.holds`` is the same decision, on a config as a check cell or containerd reads it."""
    default = default_runtime_name(eff.data, eff.version)
    key = runtime_path(eff.version, "x")[:-2] + ("default_runtime_name",)
    typed = _default_not_a_string(eff, key, p.runtime_name) or _legacy_default_not_a_table(eff, key)
    if typed is not None:  # whatever the rule for the default: containerd cannot read this one
        return typed
    if not rule.allows(default):
        path, line = locate(eff, key)
        return Problem.of("default.is_runtime", path, line, default=default, runtime=p.runtime_name)
    if not names_a_runtime(eff.data, eff.version, default):
        return _default_not_a_runtime(eff, default, key, p.runtime_name)
    binary = runtime_path(eff.version, default) + ("options", "BinaryName")
    if not rule.keeps and get_in(eff.data, binary) == p.binary_name:
        # the lab's rule: the nvidia binary written into runc's options runs every pod through it
        where, at = locate(eff, binary)
        return Problem.of("default.runs_runtime_binary", where, at, default=default, binary=p.binary_name,
                          header=header_text(eff, runtime_path(eff.version, p.runtime_name) + ("options",)))
    return None


def default_is_the_runtime(eff: Effective, p) -> bool:
    """The node's default runtime already is the wanted one (EKS GPU AMI, DGX, nvidia-ctk --set-as-default), kept:
    its table is the default's, and the runbook leaves it exactly as it is."""
    return getattr(p, "keeps_default", False) and default_runtime_name(eff.data, eff.version) == p.runtime_name


# A TOML value's kind, as a finding names it (catalog codes); anything else is a date or a time.
_TOML_KINDS = ((bool, "word.toml.boolean"), (int, "word.toml.integer"), (float, "word.toml.float"),
               (list, "word.toml.array"), (dict, "word.toml.table"))


def _default_not_a_string(eff: Effective, key: tuple[str, ...], runtime_name: str) -> Problem | None:
    """default_runtime_name written without quotes (true, 1, a date, an array): containerd's decoder refuses the
    CRI plugin's config, so no default at all, not runc (edit.default_runtime_name reads such a value as unset)."""
    node = get_in(eff.data, key[:-1])
    raw = node.get("default_runtime_name") if isinstance(node, dict) else None
    if raw is None or isinstance(raw, str):
        return None
    kind = say(next((code for t, code in _TOML_KINDS if isinstance(raw, t)), "word.toml.date")).as_dict()
    runtimes = get_in(eff.data, runtimes_path(eff.version))
    names = set(runtimes) if isinstance(runtimes, dict) else set()
    guess = _closest(str(raw).strip().lower(), names - {runtime_name}, cutoff=0.6) or "runc"
    path, line = locate(eff, key)
    shown = str(raw).lower() if isinstance(raw, bool) else str(raw)
    return Problem.of("default.not_a_string", path, line, value=shown, kind=kind,
                      fixed=f"default_runtime_name = {render.value(guess)}")


def _legacy_default_not_a_table(eff: Effective, key: tuple[str, ...]) -> Problem | None:
    """`default_runtime = "runc"`, meant as default_runtime_name: in versions 1 and 2, default_runtime is the
    deprecated runtime *table*; containerd 1.6 cannot decode a string (or any non-table) into it ("Can't convert
    runc(string) to config.Runtime") and its CRI plugin does not load. (Version 3 has no such key: containerd 2.x
    drops it with a warning, and the default is default_runtime_name's, which the other rules judge.)"""
    node = get_in(eff.data, key[:-1])
    raw = node.get("default_runtime") if isinstance(node, dict) and of(eff.version).legacy_default_runtime else None
    if raw is None or isinstance(raw, dict):
        return None
    path, line = locate(eff, key[:-1] + ("default_runtime",))
    name = raw if isinstance(raw, str) and raw.strip() else "runc"
    return Problem.of("default.legacy_not_a_table", path, line, value=render.value(raw),
                      fixed=f"default_runtime_name = {render.value(name.strip())}")


def _default_not_a_runtime(eff: Effective, default: str, key: tuple[str, ...], runtime_name: str) -> Problem:
    """default_runtime_name names no runtime (default_rule.names_a_runtime): containerd's CRI plugin refuses to
    load (1.6's ValidatePluginConfig, "no corresponding runtime configured in `containerd.runtimes` ..."). The fix
    offers the runtime whose name is closest ("rnuc", "runc " → runc), or the table for the name as written (a
    crun that was meant but never configured)."""
    runtimes = get_in(eff.data, runtimes_path(eff.version))
    runtimes = runtimes if isinstance(runtimes, dict) else {}
    path, line = locate(eff, key)
    guess = _closest(default.strip().lower(), set(runtimes) - {runtime_name}, cutoff=0.6) or "runc"
    return Problem.of("default.not_a_runtime", path, line, default=default, runtimes=", ".join(sorted(runtimes)) or "-",
                      fixed=f"default_runtime_name = {render.value(guess)}",
                      header=header_text(eff, runtime_path(eff.version, default)))


def runtime_problems(eff: Effective, p, *, part: str, path: tuple[str, ...] | None = None,
                     keys: RuntimeKeys | None = None) -> list[Problem]:
    """part="runtime": the table is where containerd looks, with the right runtime_type and only keys containerd
    knows: ``keys``, the node's containerd's own reading where there is one to ask, else the data's for the
    config's version (releases.py). part="options": BinaryName and SystemdCgroup, each with its type; ``path``
    names another table to judge them in (a misplaced one: its mistakes are the student's too, each said on its
    own line)."""
    if part not in ("runtime", "options"):
        raise ValueError(f"part is 'runtime' or 'options', not {part!r}")
    path = path or runtime_path(eff.version, p.runtime_name)
    table = get_in(eff.data, path)
    hdr = header_text(eff, path)
    if part == "runtime":
        out = [_stray_problem(eff, p.runtime_name, *stray) for stray in stray_runtime_tables(eff, p.runtime_name)]
        out += plugin_key_problems(eff, p)
        if not isinstance(table, dict):
            return out or [_misspelt_runtime(eff, p, hdr) or
                           Problem.of("runtime.missing", eff.main.lab_path, runtime=p.runtime_name, header=hdr,
                                      runtime_type=RUNTIME_TYPE)]
        said = [q.code for q in out if q.code.startswith("runtime.misplaced")]
        # a misplaced header (its quotes lost) holds the runtime's keys: moving it is the one fix, so the keys it
        # holds are not also "missing" where containerd looks (adding them there would make a duplicate)
        keys = keys or releases.of_version(eff.version)
        return out + [q for q in _table_problems(eff, path, table, hdr, keys) if not (said and q.code in ("runtime.type_missing", "runtime.type_under_options"))]
    if not isinstance(table, dict):
        return []
    own = table.get("options")
    own = own if isinstance(own, dict) else None
    opt_hdr = header_text(eff, path + ("options",))
    # option lines written in the runtime table itself (step 2's runtime.option_outside_options): judged here as
    # they read once moved under the options header, step 2's fix, so that one mistake costs one step (issue 41)
    moved = {k: table[k] for k in options_outside(table, releases.of_version(eff.version)) if k not in (own or {})}
    if own is None and not moved:
        return [Problem.of("options.missing", eff.main.lab_path, runtime=p.runtime_name, header=opt_hdr,
                           binary=p.binary_name, cgroup=render.value(p.systemd_cgroup))]
    options = {**(own or {}), **moved}
    at = {k: path + (k,) for k in moved}  # where each moved line is now
    typos = _option_typos(eff, p, path + ("options",), own or {})
    # a key written as a typo or in another case alone: that verdict says it, not also "missing"
    said = {t.values["guess"] for t in typos} | {v for k, v in case_variants(options).items() if _written(options, v) == k}
    skip = ("BinaryName", "SystemdCgroup")
    return [q for q in _binary_problems(eff, p, path, options, opt_hdr, at) + _cgroup_problems(eff, p, path, options, at)
            if not (q.code.endswith(".missing") and q.values["key"].split(".")[-1] in said)] + typos + \
        _type_problems(eff, path + ("options",), own or {}, OPTION_TYPES, skip=skip) + \
        _type_problems(eff, path, moved, OPTION_TYPES, skip=skip) + \
        _spelling_problems(eff, p, path + ("options",), own or {}) + _spelling_problems(eff, p, path, moved)


def options_outside(table: dict, keys: RuntimeKeys) -> list[str]:
    """The keys of a runtime table that are runc's options written under the runtime's own header (in any case):
    the options header line left out, or the key put above it. containerd drops them without a word."""
    names = {o.lower() for o in OPTION_TYPES}
    return [k for k in table if k not in keys and k.lower() in names]


def _misspelt_runtime(eff: Effective, p, hdr: str) -> Problem | None:
    """A runtime table whose name is the runtime's misspelt (nvida, nvidia-gpu, Nvidia): the header to correct."""
    runtimes = get_in(eff.data, runtimes_path(eff.version))
    names = set(runtimes) - {default_runtime_name(eff.data, eff.version), "runc", "crun"} if isinstance(runtimes, dict) else set()
    # nvidia beside nvidia-cdi is another runtime (the variants), not a misspelling of it
    names = {n for n in names if not (n.startswith(p.runtime_name) or p.runtime_name.startswith(n))}
    near = [n for n in sorted(names) if n.lower() == p.runtime_name.lower()] or \
        [n for n in [_closest(p.runtime_name, names, cutoff=0.7)] if n]
    if not near:
        return None
    where, line = locate(eff, runtimes_path(eff.version) + (near[0],))
    return Problem.of("runtime.name_misspelt", where, line, name=near[0], runtime=p.runtime_name, header=hdr,
                      shown=_raw_header(eff, where, line) or header_text(eff, runtimes_path(eff.version) + (near[0],)))


def _table_problems(eff: Effective, path, table: dict, hdr: str, keys: RuntimeKeys) -> list[Problem]:
    out = []
    rt = table.get("runtime_type")
    where, line = locate(eff, path + ("runtime_type",) if rt is not None else path)
    options = table.get("options") if isinstance(table.get("options"), dict) else None
    if rt is None and options is not None and "runtime_type" in options:  # written below the options header
        where, line = locate(eff, path + ("options", "runtime_type"))
        out.append(Problem.of("runtime.type_under_options", where, line, header=hdr, expected=RUNTIME_TYPE,
                              key="runtime_type"))
    elif rt is None:
        out.append(Problem.of("runtime.type_missing", where, line, header=hdr, expected=RUNTIME_TYPE, key="runtime_type"))
    elif rt != RUNTIME_TYPE:
        out.append(Problem.of("runtime.type_wrong", where, line, actual=render.value(rt), expected=RUNTIME_TYPE,
                              key="runtime_type"))
    stray = options_outside(table, keys)
    if stray:  # BinaryName written under the runtime's own header: the options header line was left out
        where, line = locate(eff, path + (stray[0],))  # ... or the key was put above an options table
        out.append(Problem.of("runtime.option_outside_options.move" if options is not None
                              else "runtime.option_outside_options",
                              where, line, keys=", ".join(stray), header=header_text(eff, path + ("options",))))
    for key in table:
        if key not in keys and key in releases.all_runtime_keys() and _is_zero_value(table[key]):
            continue  # another release's key left empty (1.6's runtime_engine = "" under 2.x): dropping it changes nothing
        if key not in keys and key not in stray:
            where, line = locate(eff, path + (key,))
            guess = _closest(key, keys.known)
            if guess == "options" and isinstance(table[key], dict) and line:  # [...nvidia.option]
                out.append(Problem.of("runtime.options_header_typo", where, line, key=key,
                                      shown=_raw_header(eff, where, line) or header_text(eff, path + (key,)),
                                      fixed=header_text(eff, path + ("options",))))
                continue
            value = render.value(table[key]) if not isinstance(table[key], dict) else "..."
            out.append(Problem.of("runtime.unknown_key.typo" if guess else "runtime.unknown_key", where, line,
                                  key=key, guess=guess, value=value, who=keys.who))
    return out + _type_problems(eff, path, table, RUNTIME_TYPES)


def _is_zero_value(v) -> bool:
    """containerd's zero value of the key's type ("", false, 0, []): as if the line were not there (ask.py alike)."""
    return v is False or (not isinstance(v, bool) and v in ("", [], 0))


def _written(options: dict, proper: str) -> str:
    """The key containerd reads as ``proper``: itself, or a variant in another case written alone (its TOML
    decoder matches keys case-insensitively; kubespray's binaryName relies on it)."""
    variants = [k for k in options if k.lower() == proper.lower()]
    return proper if proper in options or len(variants) != 1 else variants[0]


def _binary_problems(eff: Effective, p, path, options: dict, opt_hdr: str, at: dict) -> list[Problem]:
    """``at``: where a key of ``options`` is when it is not under the options header (a line step 2 moves)."""
    binary = options.get("BinaryName")
    where, line = locate(eff, at.get("BinaryName", path + ("options", "BinaryName")) if binary is not None
                         else path + ("options",))
    values = dict(binary=p.binary_name, header=opt_hdr, runtime=p.runtime_name, key="options.BinaryName")
    if binary is None:
        return [Problem.of("options.binary_name.missing", where, line, **values)]
    if binary == "":  # the runc shim's default: plain runc, not the NVIDIA runtime (containerd's default config)
        return [Problem.of("options.binary_name.empty", where, line, **values)]
    if isinstance(binary, str) and binary != p.binary_name and binary.strip() == p.binary_name:
        return [Problem.of("options.binary_name.spaces", where, line, actual=render.value(binary), **values)]
    if not isinstance(binary, str) or not binary.startswith("/"):
        return [Problem.of("options.binary_name.relative", where, line, actual=render.value(binary), **values)]
    if binary != p.binary_name:
        return [Problem.of("options.binary_name.wrong", where, line, actual=render.value(binary), **values)]
    return []


def _cgroup_problems(eff: Effective, p, path, options: dict, at: dict) -> list[Problem]:
    sc = options.get("SystemdCgroup")
    where, line = locate(eff, at.get("SystemdCgroup", path + ("options", "SystemdCgroup")) if sc is not None
                         else path + ("options",))
    values = dict(expected=render.value(p.systemd_cgroup), key="options.SystemdCgroup")
    if isinstance(sc, str):
        word = sc.strip().lower()
        return [Problem.of("options.systemd_cgroup.string", where, line, value=render.value(sc),
                           fixed=word if word in ("true", "false") else render.value(p.systemd_cgroup), **values)]
    if sc is None and p.systemd_cgroup is not False:  # left out: containerd reads false, its zero value
        return [Problem.of("options.systemd_cgroup.missing", where, line, **values)]
    if sc is not None and sc is not p.systemd_cgroup:
        return [Problem.of("options.systemd_cgroup.wrong", where, line, actual=render.value(sc), **values)]
    # as read, a moved line or a misplaced table is not there yet: runc's value against what containerd reads now
    # would be step 2's mistake said again
    not_read_yet = "SystemdCgroup" in at or path != runtime_path(eff.version, p.runtime_name)
    warning = None if not_read_yet else cgroup_disagreement(eff, p)
    return [warning] if warning else []


def _spelling_problems(eff: Effective, p, path, options: dict) -> list[Problem]:
    """A key spelt like one of containerd's but in another case (kubespray's binaryName): with both present,
    which one containerd takes depends on its decoder, so GPU pods may run plain runc."""
    out = []
    for key in options:
        for proper in ("BinaryName", "SystemdCgroup"):
            if key != proper and key.lower() == proper.lower():
                where, line = locate(eff, path + (key,))
                if _written(options, proper) == key:  # alone: the fix is the line with the value the lab asks for
                    out.append(Problem.of("options.key_spelling.alone", where, line, key=key, proper=proper,
                                          value=_wanted(p)[proper]))
                    continue
                out.append(Problem.of("options.key_spelling", where, line, key=key, proper=proper,
                                      value=render.value(options[key]) if not isinstance(options[key], dict) else "..."))
    return out


def _wanted(p) -> dict[str, str]:
    """The two option lines the lab asks for, as TOML values."""
    return {"BinaryName": render.value(p.binary_name), "SystemdCgroup": render.value(p.systemd_cgroup)}


def _option_typos(eff: Effective, p, path, options: dict) -> list[Problem]:
    """A key runc's options do not have but nearly spell (BinaryPath, SystemCgroup, binary_name): containerd
    drops it without a word, so the runtime runs without it. The fix is the line to write, with the value the
    lab asks for when the key is one of the two it owns."""
    known = {k.lower(): k for k in OPTION_TYPES}
    wanted = _wanted(p)
    out = []
    for key, value in options.items():
        if key.lower() in known:
            continue
        guess = _closest(key.lower().replace("_", ""), set(known), cutoff=0.7)
        if guess is None:
            continue
        proper = known[guess]
        where, line = locate(eff, path + (key,))
        shown = render.value(value) if not isinstance(value, dict) else "..."
        code = "options.unknown_key.extra" if _written(options, proper) in options else "options.unknown_key.typo"
        out.append(Problem.of(code, where, line, key=key, guess=proper, value=wanted.get(proper, shown)))
    return out


# What containerd decodes each key as (CRI runtime config and runc's options); a TOML value of another type is
# either refused when the config is decoded or fails when a pod starts.
RUNTIME_TYPES = {"runtime_engine": str, "runtime_root": str, "runtime_path": str, "base_runtime_spec": str,
                 "cni_conf_dir": str, "snapshotter": str, "sandboxer": str, "sandbox_mode": str, "io_type": str,
                 "privileged_without_host_devices": bool, "privileged_without_host_devices_all_devices_allowed": bool,
                 "treat_ro_mounts_as_rro": bool, "cgroup_writable": bool, "cni_max_conf_num": int,
                 "pod_annotations": list, "container_annotations": list, "options": dict}
OPTION_TYPES = {"BinaryName": str, "Root": str, "CriuPath": str, "CriuImagePath": str, "CriuWorkPath": str,
                "ShimCgroup": str, "SystemdCgroup": bool, "NoPivotRoot": bool, "NoNewKeyring": bool,
                "IoUid": int, "IoGid": int}
_KIND = {str: ("value.kind.string", '"..."'), bool: ("value.kind.boolean", "true"), int: ("value.kind.integer", "0"),
         list: ("value.kind.array", '["..."]'), dict: ("value.kind.table", "[...]")}  # the kind's words, an example


def _type_problems(eff: Effective, path, table: dict, types: dict, skip=()) -> list[Problem]:
    out = []
    for key, want in types.items():
        v = table.get(key)
        if key in skip or v is None or (isinstance(v, want) and not (want is int and isinstance(v, bool))):
            continue
        kind, example = _KIND[want]
        kind = say(kind)
        if want is bool and isinstance(v, str) and v.strip().lower() in ("true", "false"):
            example = v.strip().lower()  # a string boolean: the fix is the same word without quotes
        elif want is str and not isinstance(v, (dict, list)):
            example = render.value(str(v).lower() if isinstance(v, bool) else str(v))
        where, line = locate(eff, path + (key,))
        shown = render.value(v) if not isinstance(v, dict) else "{...}"
        out.append(Problem.of("value.wrong_type", where, line, key=key, shown=shown, kind=kind,
                              example=example))
    return out


__all__ = ["blockers", "owner_file", "require_runtime", "warnings", "default_problem", "runtime_problems",
           "posixpath"]
