"""Step 9: ask containerd itself how it reads the config, and compare with what the runbook expects.

Our parsers only prove that the TOML is well-formed. containerd silently drops misplaced tables and unknown
keys and keeps `SystemdCgroup = "true"` as a string until a pod starts, so the last word belongs to the
consumer: `containerd --config FILE config dump` (runbook_lib.containerd.verify). It is asked when it is
there: on a real node (root `/` and `containerd` on PATH) or when the `containerd_bin` parameter names it.
Otherwise the step is skipped and says why.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

from typing import TYPE_CHECKING

from runbook_lib.findings.messages import Msg, bilingual, display_width
from runbook_lib.findings.problem import Problem
from runbook_lib.fs.lifeline import child_preexec
from runbook_lib.findings.catalog import say
from runbook_lib.containerd import render
from runbook_lib.containerd.edit import cgroup_as_read
from runbook_lib.containerd.default_rule import DefaultRule
from runbook_lib.containerd.versions import RUNTIME_TYPE, any_cri_disabled_by
from runbook_lib.containerd.versions import read_by

if TYPE_CHECKING:
    from runbook_lib.containerd import verify

DUMP_CMD = "containerd --config {config} config dump"


def choose_binary(p, target) -> tuple[str | None, Msg | None]:
    """The containerd to ask, or None and the reason it is not asked."""
    if p.containerd_bin:
        return p.containerd_bin, None
    if target.is_host:
        found = shutil.which("containerd")
        if found:
            return found, None
        return None, say("ask.skipped_real_node_root")
    if getattr(p, "profile", "lab") == "node":  # the node's root mounted here: its containerd is not this machine's
        return None, say("ask.skipped_node_root_elsewhere", root=target.root)
    return None, say("ask.skipped_root_lab_sandbox", root=target.root)


def containerd_version(binary: str) -> str:
    """`binary --version`'s third word, or "?". Asked once per binary file as it is: a run asks it from several
    steps, and the same path with the same inode, size and change times is the same program, which says the
    same; a file replaced or rewritten is asked again. A failed ask is not remembered."""
    path = shutil.which(binary) or binary
    try:
        st = os.stat(path)
    except OSError:
        return "?"
    key = (os.path.abspath(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    said = _VERSION_SAID.get(key)
    if said is None:
        try:
            proc = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20,
                                  preexec_fn=child_preexec)
        except (OSError, subprocess.SubprocessError):
            return "?"
        said = proc.stdout
        if proc.returncode == 0:
            _VERSION_SAID[key] = said
    out = said.split()
    return out[2] if len(out) > 2 else "?"


_VERSION_SAID: dict[tuple, str] = {}  # what each binary (its identity: containerd_version) said to --version


def rejected_problem(exc: "verify.ContainerdRejected", config_path: str) -> Problem:
    """containerd's own words, with the file and line it names (only TOML errors carry a line)."""
    said = exc.said
    m = re.search(r"failed to load TOML(?: from)?:? (/[^:]+): (?:\((\d+), (\d+)\))?", said)
    path = m.group(1) if m else config_path
    line = int(m.group(2)) if m and m.group(2) else None
    at = re.search(r"failed to unmarshal TOML at row (\d+) column \d+", said)  # 2.x: the row, but no file
    if at and m is None:
        line = int(at.group(1))
    cmd = DUMP_CMD.format(config=config_path)
    hint = say("containerd.rejects.plugin_key_uri") if "invalid plugin key URI" in said else None
    return Problem.of("containerd.rejects", path, line, returncode=exc.returncode, said=said, cmd=cmd, hint=hint,
                      place=say("containerd.rejects.the_line" if line else "containerd.rejects.the_place"))


def _type(v) -> str:
    return {bool: "boolean", str: "string", int: "integer", float: "float"}.get(type(v), type(v).__name__)


def shown(v) -> str:
    return f"({bilingual(say('containerd.ask.absent'))})" if v is None else f"{render.value(v)} ({_type(v)})"


def compare(reading: dict, p, written: dict | None, file_default: str | None,
            rule: DefaultRule | None = None, *, removing: bool = False) -> tuple[list[tuple], list[Problem]]:
    """Rows (item, expected, containerd reads, ok) and the problems: what containerd reads against what
    the runbook expects. `written` is the runtime's table as our parser reads the file (None if it cannot),
    `file_default` the default runtime name read from the file the same way. ``removing`` (mode=remove): the
    runtime is read only when the file still has it (a node's own, never the runbook's), with the file's values."""
    if removing and written is None:
        return _compare_removed(reading, p, file_default, rule or DefaultRule.of(p))
    name, cfg = p.runtime_name, p.config_path
    cmd = DUMP_CMD.format(config=cfg)
    rt, names = reading["runtime"], reading["runtime_names"]
    rows: list[tuple] = []
    problems: list[Problem] = []

    def bad(code, **values):
        problems.append(Problem.of(f"containerd.reads.{code}", cfg, cmd=cmd, runtime=name, **values))

    rows.append(("runtimes", bilingual(say("containerd.ask.includes", name=name)), ", ".join(names) or f"({bilingual(say('word.none'))})", name in names))
    disabled = [d for d in reading["disabled_plugins"] if d in any_cri_disabled_by()]
    if disabled:
        bad("cri_disabled", plugins=", ".join(disabled), plugin=disabled[0])
    elif rt is None:
        bad("runtime_missing", runtimes=", ".join(names) or "-")
    if rt is not None and not removing:  # after a remove, a runtime still in the file is the node's, with its values
        options = rt.get("options") if isinstance(rt.get("options"), dict) else {}
        for item, want, got in ((f"runtimes.{name}.runtime_type", RUNTIME_TYPE, rt.get("runtime_type")),
                                (f"runtimes.{name}.options.BinaryName", p.binary_name, options.get("BinaryName")),
                                # a key left out is containerd's zero value, false (runc's options as it decodes them)
                                (f"runtimes.{name}.options.SystemdCgroup", p.systemd_cgroup, cgroup_as_read(options))):
            ok = got == want and type(got) is type(want)
            rows.append((item, shown(want), shown(got), ok))
            if ok:
                continue
            key = item.rsplit(".", 1)[1]
            if isinstance(want, bool) and isinstance(got, str):
                bad("string_boolean", key=key, value=render.value(got), raw=got, expected=render.value(want))
            else:
                bad("value_differs", key=key, actual=shown(got), expected_shown=shown(want), expected=render.value(want))
        for key in sorted(set(written or {}) - set(rt)):
            if not isinstance(written[key], bool) and written[key] in ("", [], {}, 0):
                continue  # a key 2.x no longer knows, left empty (1.6's runtime_engine = ""): dropping it changes nothing
            bad("key_dropped", key=key)
    default = reading["default_runtime_name"]
    rule = rule or DefaultRule.of(p)  # the run's rule for the default (containerd/default_rule.py)
    keep = rule.keeps
    want_default = file_default if file_default is not None and rule.allows(file_default) else "runc"
    ok = default is not None and rule.allows(default) and default in names and default == want_default
    rows.append(("default_runtime_name", shown(want_default) if keep else f"{shown(want_default)}, {bilingual(say('containerd.ask.not_runtime', name=name))}",
                 shown(default), ok))
    if not disabled and default is not None and not rule.allows(default):
        bad("default_is_runtime")
    elif not disabled and default is not None and default not in names:
        bad("default_not_a_runtime", default=default, runtimes=", ".join(names))
    elif not disabled and file_default is not None and default != file_default:
        bad("default_differs", default=default, file_default=file_default)
    return rows, problems


def _compare_removed(reading: dict, p, file_default: str | None, rule: DefaultRule) -> tuple[list[tuple], list[Problem]]:
    """After mode=remove took the runtime out of the file: containerd reads no such runtime, and its default is
    the file's, by the run's rule."""
    name, cfg = p.runtime_name, p.config_path
    names, default = reading["runtime_names"], reading["default_runtime_name"]
    rows = [("runtimes", bilingual(say("ask.row_runtime_removed", runtime=name)), ", ".join(names) or "-", name not in names)]
    problems = []
    if name in names:
        problems.append(Problem.of("containerd.reads.runtime_left", cfg, cmd=DUMP_CMD.format(config=cfg), runtime=name))
    ok = default is not None and rule.allows(default) and default in names and default == (file_default or default)
    rows.append(("default_runtime_name", shown(file_default or "runc"), shown(default), ok))
    return rows, problems


def version_unknown(reading: dict, p, file_version: int | None) -> Problem | None:
    """The file's version is newer than any the asked containerd knows: `config dump` then shows the newest
    version it knows (1.x: 2), and the file's newer plugin tables are gone without an error (1.x has no
    io.containerd.cri.v1.runtime plugin; tests/fixtures/broken/README.md, v2-path-in-v3-file)."""
    dumped = reading.get("config_version")
    if file_version is None or not isinstance(dumped, int) or file_version <= dumped:
        return None
    return Problem.of("containerd.reads.version_unknown", p.config_path, file_version=file_version, dumped=dumped,
                      containerd_version=reading.get("containerd_version", "?"), runtime=p.runtime_name,
                      runtimes=", ".join(reading["runtime_names"]) or "-", read_by=read_by(file_version), cmd=DUMP_CMD.format(config=p.config_path))


_width = display_width


def evidence(reading: dict, rows: list[tuple], p) -> dict[str, str]:
    """The comparison as a table a person reads in the notebook."""
    head = (bilingual(say("label.item")), bilingual(say("containerd.ask.expected")), bilingual(say("containerd.ask.reads")), "")
    table = [head] + [(item, want, got, "✓" if ok else "✗") for item, want, got, ok in rows]
    widths = [max(_width(row[i]) for row in table) for i in range(3)]
    lines = ["  ".join(cell + " " * (widths[i] - _width(cell)) if i < 3 else cell for i, cell in enumerate(row)).rstrip()
             for row in table]
    title = f"containerd {reading['containerd_version']} ({reading['binary']}): {DUMP_CMD.format(config=p.config_path)}"
    return {title: "\n".join(lines)}
