"""The soft-assert of the notebook's check cells: visible assertions, every one recorded, the step's verdict
shown at the end of the cell.

    with rb.expect("options") as expect:
        expect.equal(nvidia, "runtime_type", "io.containerd.runc.v2")
        expect.boolean(nvidia, "options.SystemdCgroup", systemd_cgroup)   # the string "true" is no boolean

An assertion never raises in the middle of a cell, so a student sees every mistake at once. When the block ends,
the step's verdict is read back from disk by the library (the same in apply and check mode); a failed
assertion adds a finding of its own only when that verdict found nothing (otherwise the library's findings
already explain the mistake, with its line and fix). Apply mode then fails the cell; check mode records the findings and the last cell fails the run.
"""

from __future__ import annotations

from dataclasses import dataclass

import posixpath

from runbook_lib.containerd.effective import read_version
from runbook_lib.containerd.load import load_toml
from runbook_lib.containerd.versions import main_table
from runbook_lib.fs.tomlvalue import value as toml_value
from runbook_lib.findings.errors import RunbookError
from runbook_lib.steps import lines
from runbook_lib.findings.messages import Msg, bilingual
from runbook_lib.findings.problem import Problem, catalog, say

MISSING = object()


def _missing() -> str:
    return f"({bilingual(say('label.missing'))})"


def _any_order() -> str:
    return f" ({bilingual(say('label.any_order'))})"


def dig(table, key: str):
    """table["a"]["b"] for key "a.b", or MISSING (a student's file may lack any part of it)."""
    node = table
    for part in key.split(".") if key else []:
        if not isinstance(node, dict) or part not in node:
            return MISSING
        node = node[part]
    return node


def shown(v) -> str:
    if v is MISSING:
        return _missing()
    if v is None:  # YAML's null (`kind:` with nothing after it): as the file spells it, not Python's None
        return "null"
    try:
        return toml_value(v)
    except Exception:  # noqa: BLE001 - a value TOML cannot write (a YAML date): show it as text
        return str(v)


@dataclass
class Check:
    text: str | Msg  # the assertion as the cell states it: an expression, or the catalog's sentence for it
    ok: bool
    key: str
    actual: str
    expected: str


class Expect:
    def __init__(self, run=None, step_id: str | None = None, path: str | None = None):
        self.checks: list[Check] = []
        self.run, self.step_id = run, step_id
        self.path = path  # the file the assertions are about, for the findings they add

    def _add(self, text: str, ok: bool, key: str, actual, expected, *, actual_text: str | None = None) -> bool:
        self.checks.append(Check(text, ok, key, actual_text if actual_text is not None else shown(actual),
                                 shown(expected) if expected is not MISSING else ""))
        return ok

    def equal(self, table, key: str, expected) -> bool:
        """table[key] == expected, of the same type (1 is not true, "true" is not true)."""
        actual = dig(table, key)
        ok = actual is not MISSING and actual == expected and type(actual) is type(expected)
        return self._add(f"{key} == {shown(expected)}", ok, key, actual, expected)

    def boolean(self, table, key: str, expected: bool) -> bool:
        """table[key] is the TOML boolean `expected` as containerd reads it: a quoted "true" is a string and fails;
        a key left out is containerd's zero value, false."""
        actual = dig(table, key)
        read = False if actual is MISSING else actual
        return self._add(f"{key} is {shown(expected)} (boolean)", read is expected, key, actual, expected)

    def not_equal(self, table, key: str, unwanted) -> bool:
        """table[key] is anything but `unwanted` of its type (1 is not true: `1 != True` alone would say it is)."""
        actual = dig(table, key)
        same = actual is not MISSING and actual == unwanted and type(actual) is type(unwanted)
        return self._add(f"{key} != {shown(unwanted)}", not same, key, actual, MISSING)

    def default_runtime(self, cfg: dict, rule) -> bool:
        """The run's rule for the default runtime (containerd/default_rule.py, the one step 4's
        verdict and step 9's comparison judge by) on ``cfg`` as read: tomllib's config, or containerd's own dump."""
        try:
            version = read_version(cfg, path="-", empty=not cfg)
        except RunbookError:
            version = None
        node = main_table(cfg, version)[0] if version else None
        raw = node.get("default_runtime_name", MISSING) if isinstance(node, dict) else MISSING
        actual = "runc" if raw is MISSING and version else raw  # unset: containerd's default, runc
        return self._add(rule.said(), rule.holds(cfg, version), "default_runtime_name", actual, MISSING)

    def runtime_as_in_file(self, dump: dict, cfg: dict, name: str) -> bool:
        """mode=remove: containerd reads the runtime exactly when the file (tomllib's config) still has it."""
        in_file, read = name in self.run.runtime_names(cfg), name in self.run.runtime_names(dump)
        said = say("expect.runtime_as_in_file_kept" if in_file else "expect.runtime_as_in_file_gone", runtime=name)
        return self._add(said, in_file == read, f"runtimes.{name}", read, MISSING,
                         actual_text=", ".join(self.run.runtime_names(dump)) or "-")

    def true(self, condition, text: str, *, key: str = "", **values) -> bool:
        """``condition`` holds; ``text`` is a catalog code (its sentence, in both languages, is the assertion)
        or the assertion as an expression."""
        said = say(text, **values) if text in catalog() else text
        return self._add(said, bool(condition), key, condition, MISSING, actual_text="false")

    def _read(self, lab_path: str) -> tuple[str | None, str | None]:
        """(the file's text, why it cannot be read): a folder where the file should be is the verdict's finding."""
        try:
            return self.run.read_text(lab_path), None
        except RunbookError as exc:
            return None, bilingual(exc.what)

    def file(self, lab_path: str) -> bool:
        """The toolkit file holds the lines the plan derived, compared by the step's rule (steps/lines.py: a list
        of names in any order, a final newline optional), the rule its verdict uses."""
        plan = self.run.plans.get(self.step_id)
        planned = plan.new(lab_path) if plan is not None else None
        expected = planned.decode() if planned is not None else ""
        # the step's rule; a mode that does not run the step (mode=remove) compares exactly
        rule = next((s.rule for s in self.run.steps if s.id == self.step_id), lines.EXACT)
        text = f"{lab_path} == {expected.strip().replace(chr(10), ' / ')}" + (_any_order() if rule.unordered else "")
        got, unreadable = self._read(lab_path)
        if unreadable:
            return self._add(text, False, lab_path, None, MISSING, actual_text=unreadable)
        return self._add(text, lines.same(rule, got, expected), lab_path, got, MISSING,
                         actual_text=_missing() if got is None else got.strip().replace("\n", " / "))

    def line(self, lab_path: str, key: str, expected) -> bool:
        """The file's line ``KEY=value`` holds ``expected``, written as the lab writes it (a list as its names with
        commas, in any order; a boolean as TOML's true/false), compared by the rule the step's verdict uses."""
        listed = isinstance(expected, (list, tuple))
        as_lab = lambda v: shown(v) if isinstance(v, bool) else str(v)  # noqa: E731 - a value as the lab writes it
        want = ",".join(map(as_lab, expected)) if listed else as_lab(expected)
        rule = lines.Rule(lists=(key,)) if listed else lines.EXACT
        got, unreadable = self._read(lab_path)
        value = lines.value_of(got, key)
        # a node's fact is read from its files, not from an answer file: named by its key alone
        named = f"{posixpath.basename(lab_path)}: " if self.run.answer_files else ""
        said = f"{named}{key}={want}" + (_any_order() if listed else "")
        actual = unreadable or (_missing() if got is None else
                                f"{key}={value}" if value is not None else f"(no {key}= line)")
        return self._add(said, lines.value_matches(rule, key, value, want), f"{lab_path}:{key}", value, MISSING,
                         actual_text=actual)

    def toml(self, lab_path: str) -> dict:
        """tomllib.load(open(path, "rb")), as the lab does it: a syntax error is this step's finding (raised inside
        the `with` block, where the step's verdict records it with its line and column), never an empty {}."""
        said = f"tomllib.load(open({lab_path!r}, 'rb'))"
        raw = self.run.read_bytes(lab_path)
        if raw is None:
            self._add(said, False, lab_path, None, MISSING, actual_text=_missing())
            return {}
        try:
            data = load_toml(raw, lab_path).data
        except RunbookError as exc:  # shown failed here, and raised: the verdict's finding, with line and column
            self._add(said, False, lab_path, None, MISSING, actual_text=bilingual(exc.what))
            raise
        self._add(said, True, lab_path, None, MISSING, actual_text="")
        return data

    def failed(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]

    def uncovered(self, problems: list[Problem]) -> list[Problem]:
        """A finding for each failed assertion when the library's verdict found nothing itself (when it did,
        its findings explain the same mistake in more detail, with the line and the fix)."""
        if any(p.is_error for p in problems):
            return []
        return [Problem.of("expect.failed" if c.key else "expect.failed.condition", self.path, assertion=c.text,
                           actual=c.actual, key=c.key) for c in self.failed()]

    def text(self) -> str:
        return "\n".join(f"  {'✓' if c.ok else '✗'} {_both(c.text)}" + ("" if c.ok else f"   ← {c.actual}")
                         for c in self.checks)


def _both(text: str | Msg) -> str:
    return bilingual(text) if isinstance(text, Msg) else text
