"""What every `runbook` sub-command reads the same way: the notebook it runs, the parameters (-f, then -p, then
--root/--mode, as papermill reads them) and the roots. Only the standard library at module level.
"""

from __future__ import annotations
from runbook_lib.findings.catalog import say

import os

from runbook_lib.cli.refused import Refused


def as_papermill_reads(text: str):
    """What papermill's own `-p NAME VALUE` hands the notebook for VALUE, as its CLI documents it: True, False and
    None by their words, a whole number, a decimal, else the text as given. Nothing is judged here: the notebook's
    validation (runbook_lib/engine/params.py: validate) judges the value as it does papermill's, so papermill,
    `runbook` and the Python API accept and refuse the same values with the same words; the real papermill command
    and this reading are held to each other by tests/engine/test_params_one_parser.py."""
    words = {"True": True, "False": False, "None": None}
    if text in words:
        return words[text]
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def read_parameters_file(path: str) -> dict:
    """A -f file as papermill's own -f reads it (papermill.iorw.NoDatesSafeLoader: YAML's safe types, a date left
    as its text), within the runbook's bounds on its size, nesting and aliases (fs/bounded_read.py, fs/yamldoc.py)."""
    import yaml

    from runbook_lib.findings.errors import RunbookError
    from runbook_lib.fs.given import read_given, yaml_error
    from runbook_lib.fs.yamldoc import check_bounds

    from papermill.iorw import NoDatesSafeLoader
    name = say("label.parameters_file")
    try:
        text = read_given(path, name, "-f params/node.yaml")
        check_bounds(text)
        loaded = yaml.load(text, Loader=NoDatesSafeLoader) or {}
    except RunbookError as exc:  # nested or aliased beyond the bounds: its words say which and the limit
        raise Refused(exc.render()) from None
    except yaml.YAMLError as exc:
        raise Refused(str(yaml_error(exc, path, name))) from None
    except ValueError as exc:  # read_given's words
        raise Refused(str(exc)) from None
    if not isinstance(loaded, dict):
        raise Refused(str(say("args.parameters_file_must_mapping", params_file=path)))
    return loaded


def collect_parameters(args, declared: dict, root: str | None = None) -> dict:
    """-f file, then each -p, then --root/--mode: later wins, as with papermill's own command line. Each value is
    what papermill itself makes of it; only the names are checked here, against the notebook's parameters cell
    (``declared``: papermill.inspect_notebook), and every value is left to the notebook's validation."""
    params: dict = {}
    if args.params_file:
        params.update(read_parameters_file(args.params_file))
    for name, value in args.params:
        params[name] = as_papermill_reads(value)
    params["root"] = root if root is not None else args.root
    for option, name in (("timeout", "time_limit"), ("memory", "memory_limit")):
        value = getattr(args, option, None)
        if value is not None:
            if value <= 0:
                from runbook_lib.findings.problem import words
                what, fix, _ = words("parameter.not_positive_int", name=f"--{option}", value=value)
                raise Refused(f"{what.ko} {fix.ko}\n{what.en} {fix.en}")
            params[name] = value
    if args.mode:
        params["mode"] = args.mode
    if getattr(args, "smoke", None):  # `runbook run --smoke`, the pod through the handler
        params["smoke"] = args.smoke
    refuse_unknown_names(params, declared)
    return params


def refuse_unknown_names(params, declared) -> None:
    """A name that is no parameter of the notebook (``declared``), refused before anything runs, with the words
    every way in says it with (engine/params.py: refuse_unknown): the name and the valid one it nearly spells."""
    from runbook_lib.engine.params import refuse_unknown
    from runbook_lib.findings.errors import ParameterError
    from runbook_lib.findings.problem import Problem
    from runbook_lib.findings.text import lines as finding_lines
    try:
        refuse_unknown(params, declared)
    except ParameterError as exc:
        raise Refused("\n".join(finding_lines(Problem.from_error(exc)))) from None


def refuse_same_root_twice(roots: list[str]) -> None:
    """The same root twice would only wait for its own lock; refused before anything runs."""
    real = [os.path.realpath(r) for r in roots]
    dup = sorted({r for r in real if real.count(r) > 1})
    if dup:  # each with the paths as given: a link to another student's folder shows under its own name
        shown = "; ".join(f"{', '.join(dict.fromkeys(g for g, r in zip(roots, real) if r == d))} → {d}" for d in dup)
        raise Refused(str(say("args.same_root_appears_twice", shown=shown)))
