"""What every `runbook` sub-command reads the same way: the notebook it runs, the parameters (-f, then -p, then
--root/--mode, as papermill reads them) and the roots. Only the standard library at module level.
"""

from __future__ import annotations
from runbook_lib.findings.catalog import say
from runbook_lib.k8s.names import quoted

import os

from runbook_lib.cli.refused import Refused


def coerce(name: str, value: str, type_name: str | None):
    """A -p value as the notebook declares it; undeclared types follow papermill's own -p rules."""
    low = value.strip().lower()
    if type_name == "str":
        return value
    if type_name == "bool":
        if low in ("true", "yes", "1", "on"):
            return True
        if low in ("false", "no", "0", "off"):
            return False
        raise Refused(str(say("args.must_true_false_got", name=name, value=quoted(value))))
    if type_name in ("int", "float"):
        try:
            return int(value) if type_name == "int" else float(value)
        except ValueError:
            raise Refused(str(say("args.must_number_got", name=name, value=quoted(value)))) from None
    if value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[value]
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def collect_parameters(args, declared: dict, root: str | None = None) -> dict:
    """-f file, then each -p, then --root/--mode: later wins, as with papermill's own command line."""
    params: dict = {}
    if args.params_file:
        import yaml

        from runbook_lib.findings.errors import RunbookError
        from runbook_lib.fs.bounded_read import read
        from runbook_lib.fs.yamldoc import safe_load
        try:
            raw = read(args.params_file, "params")
            if raw is None:
                raise FileNotFoundError(2, "No such file or directory", args.params_file)
            loaded = safe_load(raw.decode("utf-8")) or {}
        except RunbookError as exc:  # too large: its words say the size and the limit
            raise Refused(exc.render()) from None
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise Refused(str(say("args.could_not_read_parameters", params_file=args.params_file, exc=exc))) from None
        if not isinstance(loaded, dict):
            raise Refused(str(say("args.parameters_file_must_mapping", params_file=args.params_file)))
        params.update(loaded)
    for name, value in args.params:
        params[name] = coerce(name, value, (declared.get(name) or {}).get("inferred_type_name"))
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
    unknown = sorted(set(params) - set(declared))
    if unknown:
        valid = ", ".join(declared) or "-"
        raise Refused(
            str(say("args.refused_notebook_no_parameter", unknown=', '.join(unknown), valid=valid)))
    return params


def refuse_same_root_twice(roots: list[str]) -> None:
    """The same root twice would only wait for its own lock; refused before anything runs."""
    real = [os.path.realpath(r) for r in roots]
    dup = sorted({r for r in real if real.count(r) > 1})
    if dup:  # each with the paths as given: a link to another student's folder shows under its own name
        shown = "; ".join(f"{', '.join(dict.fromkeys(g for g, r in zip(roots, real) if r == d))} → {d}" for d in dup)
        raise Refused(str(say("args.same_root_appears_twice", shown=shown)))
