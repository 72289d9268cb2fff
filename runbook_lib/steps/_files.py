"""What the steps that write a toolkit file share: the file's verdict against what the plan says it must hold,
compared by the one rule of runbook_lib/steps/lines.py.

The expected content is the plan's (computed on the state the earlier plans leave: the corrected inputs), so
when an earlier step is wrong the fix shows the lines the file will hold once that step is fixed, never the
broken state; when even the plan cannot know a value, the fix names no lines at all. One mistake costs one
step: a file whose own work is right passes, either

- as the corrected input says it (what it will hold once the earlier step is fixed), or
- as the student's own files stand (``derived``: what the file holds when it is derived from the inputs as they
  are now, the broken one included, as the lab asks): it faithfully reports the earlier mistake, which is that
  step's, counted there; a warning says the file changes once that step is fixed.

A file is *blocked* by the earlier step's failure only when it truly cannot be judged: it follows neither, and
even the corrected input leaves its values unknown. One that differs from both where they are known is a mistake
of its own and fails.
"""

from __future__ import annotations

import itertools

from runbook_lib.steps.lines import EXACT, Rule, canonical, derivable, extra_lines, missing_lines, same
from runbook_lib.findings.messages import Msg
from runbook_lib.findings.problem import Problem, say


def expected_text(run, step_id: str, lab_path: str, fallback) -> str:
    planned = run.plans[step_id].new(lab_path)  # a verdict always follows its step's plan (Run.verdict commits first)
    if planned is not None:
        return planned.decode()
    run.read_bytes(lab_path)  # the plan failed: a FIFO or a folder standing there is the finding, raised first
    return fallback()


def _failed_earlier(run, depends: tuple[str, ...]):
    return next((run.results[s.id].step for s in run.steps if s.id in depends and s.id in run.results
                 and run.results[s.id].failed), None)


def file_problems(run, lab_path: str, expected: str, *, depends: tuple[str, ...] = (), rule: Rule = EXACT,
                  derived=None) -> list[Problem]:
    """The file's findings. ``expected`` is what it holds once every input is right; ``derived`` (a function)
    what it would hold if derived from the inputs as they are now (a student's broken config): one text, or
    every reading the lab's words allow (report.py)."""
    if not run.answer_files:  # a node: the fact read from its files, never an answer file of the lab
        return _node_fact_problems(run, lab_path, expected, depends, rule)
    got = run.read_text(lab_path)
    shown = expected.strip().replace("\n", " / ")  # kept as the finding's value (grades.json), never its fix's words
    ok_lines = derivable(expected)
    earlier = _failed_earlier(run, depends)
    rules = every_rule(expected)
    if got is None:  # missing whatever else is wrong: said now, with the rule of every line it holds
        code = "file.missing" if ok_lines else "file.missing.after_earlier_step" if earlier else "file.missing.no_lines"
        return [Problem.of(code, lab_path, file=lab_path, expected=shown, step=earlier, rules=rules)]
    if same(rule, got, expected):  # right as it will read once every input is right: an earlier failure is not its own
        return []
    if earlier is not None and derived is not None and any(same(rule, got, d) for d in _quiet(derived)):
        # right as the student's own files stand: it reports the earlier mistake faithfully, which costs that
        # step only; said as a warning (the file changes once that step is fixed), never this step's failure
        return [Problem.of("file.faithful_to_earlier_step", lab_path, step=earlier, file=lab_path)]
    if earlier is not None and not ok_lines:
        # neither the student's files nor the corrected ones give its values: it truly cannot be judged yet
        return [Problem.of("file.after_earlier_step.no_lines", lab_path, step=earlier, file=lab_path, expected=shown,
                           rules=rules)]
    return _differs(rule, lab_path, got, expected, shown, run.target.shell_path(lab_path))


def _rule(key: str | None) -> Msg | None:
    """What a line's value must be, as a rule (toolkit.rule.*): where the student reads it, never the value."""
    from runbook_lib.findings.catalog import catalog

    code = f"toolkit.rule.{(key or 'names').lower()}"  # a file of bare names (cdi-keys.txt): the names' rule
    return say(code) if code in catalog() else None


def _key(line: str) -> str | None:
    key, eq, _ = line.partition("=")
    return key if eq else None


def every_rule(expected: str) -> Msg:
    """The rule of every line of a file, KEY=<rule> (a file of bare names: its one rule), never the lines."""
    keys = list(dict.fromkeys(_key(line) for line in expected.split("\n") if line))
    said = [(k, _rule(k)) for k in keys]
    if keys == [None] or any(r is None for _, r in said):
        return _rule(None) if keys == [None] else Msg.verbatim(expected.strip().replace("\n", " / "))
    return Msg.join("; ", [say("file.rule.key", key=k, rule=r) for k, r in said])


def wrong_rules(wrong: list[tuple[int, str | None, str | None]]) -> Msg:
    """Which lines are wrong and the rule each must follow (a line too many: delete it)."""
    said, names = [], False
    for n, got, want in wrong:
        if want is None:
            said.append(say("file.rule.delete", n=n))
        elif _key(want) is None:
            names = True  # a file of bare names: one rule for them all, said once
        else:
            rule = _rule(_key(want))
            said.append(say("file.rule.line", n=n, key=_key(want), rule=rule) if rule is not None
                        else say("file.rule.line_as", n=n, line=want))
    if names:
        said.insert(0, say("file.rule.lines", lines=[n for n, _, w in wrong if w is not None], rule=_rule(None)))
    return Msg.join("; ", said)


def _node_fact_problems(run, lab_path: str, expected: str, depends: tuple[str, ...], rule: Rule) -> list[Problem]:
    """The node profile: what the node's files say now (engine/run.py keeps it fresh) against what the run must
    leave. While an earlier step that makes what it describes failed (no runtime to report), the step is blocked
    by that step; otherwise a difference is the node's finding, said with both values."""
    got = run.read_text(lab_path)
    if got is None or same(rule, got, expected):
        return []
    facts = got.strip().replace("\n", ", ")
    earlier = _failed_earlier(run, depends)
    if earlier is not None:
        return [Problem.of("node.fact.after_earlier_step", run.p.config_path, step=earlier, facts=facts)]
    return [Problem.of("node.fact.differs", run.p.config_path, facts=facts,
                       expected=expected.strip().replace("\n", ", "))]


def _quiet(derived) -> list[str]:
    """Every text the file may hold as derived from the inputs as they are now ([] when none can be)."""
    try:
        found = derived()
    except Exception:  # noqa: BLE001 - the broken input cannot even be derived from: nothing to compare with
        return []
    if found is None:
        return []
    return [found] if isinstance(found, str) else [d for d in found if isinstance(d, str)]


def _differs(rule: Rule, lab_path: str, got: str, expected: str, shown: str, file_at: str) -> list[Problem]:
    if got.replace("\r\n", "\n") == expected or got.replace("\r\n", "\n") + "\n" == expected:
        return [Problem.of("file.line_endings", lab_path, file=lab_path, expected=shown, file_at=file_at)]
    got_lines, want_lines = canonical(rule, got), canonical(rule, expected)
    raw, want_raw = got.split("\n"), expected.split("\n")
    # the lab's lines all there with lines of the student's own among them, or all right with some left out: those
    # lines alone, not every line after them as wrong
    extra = extra_lines(rule, got, expected)
    missing = [] if extra else missing_lines(rule, got, expected)
    if extra or missing:
        changes = [(n, raw[n - 1], None) for n in extra] + [(n, None, want_raw[n - 1]) for n in missing]
        return [Problem.of("file.extra_lines" if extra else "file.missing_lines", lab_path, changes[0][0],
                           file=lab_path, lines=_changes(changes), rules=wrong_rules(changes))]
    # compared as the rule reads them; shown as written (the expected line in the config's order, not sorted)
    wrong = [(i + 1, raw[i] if g is not None else None, want_raw[i] if e is not None and i < len(want_raw) else e)
             for i, (g, e) in enumerate(itertools.zip_longest(got_lines, want_lines)) if g != e]
    slipped = _slips(rule, wrong)
    if slipped is not None:
        return [_slip_problem(slipped, lab_path, shown)]
    return [Problem.of("file.differs", lab_path, wrong[0][0], file=lab_path, expected=shown, lines=_changes(wrong),
                       rules=wrong_rules(wrong))]


def _changes(wrong: list[tuple[int, str | None, str | None]]) -> Msg:
    """Each wrong line as written and as it must be: no line yet, or none at all (to delete)."""
    return Msg.join("; ", [say("file.differs.line", n=n, got=say("file.differs.no_line") if g is None else
                               _shown(g) if g else say("file.blank_line"),
                               want=e if e is not None else say("file.differs.delete_line")) for n, g, e in wrong])


# A line whose value is right, written the way a habit writes it, each with the way to undo it, in the order they
# are undone (`export KEY: "value"` takes three). A file whose every wrong line reads right once its slips are
# undone gets a finding that names them, never "disagrees with the config", which would send the student after a
# value that is right. A slip alone has its own finding when it has more to say (file.<slip>).
def _exported(line: str) -> str:
    """export KEY=value (a shell's habit): the line without the export."""
    head, blank, rest = line.partition(" ")
    return rest.lstrip(" ") if head == "export" and blank else line


def _colon(line: str) -> str:
    """KEY: value (YAML's habit) in a line with no =: the colon and the blank after it as the =."""
    key, colon, value = line.partition(":")
    return key + "=" + value.lstrip(" ") if colon and "=" not in line else line


def _unspaced(line: str) -> str:
    """The line with the blanks right around its first = taken out (nothing else of it changed)."""
    key, eq, value = line.partition("=")
    return key.rstrip(" \t") + "=" + value.lstrip(" \t") if eq else line


def _unquoted(line: str) -> str:
    """KEY="value" or KEY='value' (a shell's habit): the value without the quotes around it."""
    key, eq, value = line.partition("=")
    if eq and len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return key + eq + value[1:-1]
    return line


def _upper_key(line: str) -> str:
    """key=value: the name in capitals, as the file's names are."""
    key, eq, value = line.partition("=")
    return key.upper() + eq + value if eq else line


def _toml_boolean(line: str) -> str:
    """print(f"...={value}") of a parsed boolean: True and False as TOML spells them."""
    return line.replace("True", "true").replace("False", "false")


SLIPS = (("export", _exported), ("colon", _colon), ("spaces_around_equals", _unspaced), ("quoted", _unquoted),
         ("key_case", _upper_key), ("python_boolean", _toml_boolean))


def _slips(rule: Rule, wrong: list[tuple[int, str | None, str | None]]) -> list[tuple[int, str, str, tuple]] | None:
    """Each wrong line with the fewest slips that, undone, make it the line it must be (as the rule compares
    lines); None when a line is missing, one too many, or wrong in its value."""
    found = []
    for n, got, want in wrong:
        if got is None or want is None:
            return None
        names = next((names for k in range(1, len(SLIPS) + 1) for names, undo in _undoings(k)
                      if canonical(rule, _undone(got, undo)) == canonical(rule, want)), None)
        if names is None:
            return None
        found.append((n, got, want, names))
    return found


def _undoings(k: int):
    for chosen in itertools.combinations(SLIPS, k):
        yield tuple(name for name, _ in chosen), [fn for _, fn in chosen]


def _undone(line: str, undo) -> str:
    for fn in undo:
        line = fn(line)
    return line


def _slip_problem(slipped, lab_path: str, shown: str) -> Problem:
    """The finding of the slips: the one slip's own when it has more to say, else file.format_slips naming them."""
    kinds = {name for *_, names in slipped for name in names}
    n, got, want, _ = slipped[0]
    if kinds == {"python_boolean"}:
        return Problem.of("file.python_boolean", lab_path, n, file=lab_path, at=n, got=got, fixed=want, expected=shown)
    lines = Msg.join("; ", [say("file.differs.line", n=at, got=_shown(g), want=w) for at, g, w, _ in slipped])
    fixed = Msg.verbatim("; ".join(w for _, _, w, _ in slipped))
    if kinds == {"spaces_around_equals"}:
        return Problem.of("file.spaces_around_equals", lab_path, n, file=lab_path, expected=shown, fixed=fixed,
                          lines=lines)
    slips = Msg.join(", ", [say(f"file.slip.{name}") for name, _ in SLIPS if name in kinds])
    return Problem.of("file.format_slips", lab_path, n, file=lab_path, expected=shown, lines=lines, slips=slips,
                      fixed=fixed)


_INVISIBLE = (("\ufeff", "file.invisible.bom"), ("\t", "file.invisible.tab"))


def _shown(line: str) -> Msg:
    """A line as written, with what cannot be seen in it named (a space at the end, a BOM, a tab)."""
    said = [say(code) for char, code in _INVISIBLE if char in line]
    body = line.replace("\ufeff", "").replace("\r", "")
    if body != body.rstrip(" "):
        said.append(say("file.invisible.space_at_end"))
    if body != body.lstrip(" "):
        said.append(say("file.invisible.space_at_start"))
    if not said:
        return Msg.verbatim(body)
    return Msg.join("", [Msg.verbatim(f"{body} ("), Msg.join(", ", said), Msg.verbatim(")")])
