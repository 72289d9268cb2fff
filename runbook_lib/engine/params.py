"""The notebook's parameters: their defaults, and the validation that runs right after the parameters cell."""

from __future__ import annotations

import json
import os
import posixpath
from dataclasses import asdict, dataclass, field, fields, make_dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from runbook_lib.cdi.spec import CDI_EXTENSIONS
from runbook_lib.findings.catalog import say
from runbook_lib.findings.errors import ParameterError
from runbook_lib.findings.messages import bilingual
from runbook_lib.k8s.names import closest, dns1123_label_problem, quoted
from runbook_lib.findings.problem import words

# a kind, and its default's type (bool_or_auto: "auto" until the run decides it, then a bool: engine/profile.py)
KINDS = {"str": str, "path": str, "choice": str, "bool": bool, "bool_or_auto": str, "int": int}
AUTO = "auto"


@dataclass(frozen=True)
class Parameter:
    """One notebook parameter, defined once in runbook_lib/data/parameters.yaml: the parameters cell, the
    validation, the Params fields, the table of docs/PARAMETERS.md and the docs are all written from this
    (tools/build_notebook.py; tests/notebook/test_committed_notebook.py checks)."""
    name: str
    default: object
    kind: str          # str | bool | bool_or_auto | path | choice | int
    ko: str            # what it means, in Korean and English (one line each, no '=': papermill drops such lines)
    en: str
    choices: tuple[str, ...] = ()
    example: str = ""  # where the default is "": the value a fix shows

    @property
    def type_name(self) -> str:
        return self.kind if self.kind in ("bool", "int") else "str"  # bool_or_auto: "auto" until decided

    def cell_line(self) -> str:
        return f"{self.name} = {self.default!r}  # {self.type_name}: {bilingual(self)}"


@lru_cache(maxsize=1)
def _table() -> tuple[Parameter, ...]:
    """runbook_lib/data/parameters.yaml, read once; a malformed entry is the package's own mistake, said plainly."""
    import yaml  # the project's own file, as the finding catalog reads its own (findings/catalog.py)

    text = (resources.files("runbook_lib") / "data" / "parameters.yaml").read_text(encoding="utf-8")
    table = []
    for entry in yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        p = Parameter(**{**entry, "choices": tuple(entry.get("choices", ()))})
        kind = KINDS.get(p.kind)
        if kind is None or type(p.default) is not kind or "=" in p.ko + p.en \
                or bool(p.choices) != (p.kind == "choice") or (p.choices and p.default not in p.choices):
            raise ValueError(f"runbook_lib/data/parameters.yaml: malformed parameter {entry!r}")
        table.append(p)
    return tuple(table)


PARAMETERS = _table()
_BY_NAME = {p.name: p for p in PARAMETERS}

MODES = _BY_NAME["mode"].choices
DISTROS = _BY_NAME["distro"].choices
LAYOUTS = _BY_NAME["layout"].choices
DEFAULT_RUNTIMES = _BY_NAME["default_runtime"].choices  # auto: keep in the node profile, runc in the lab profile
PROFILES = _BY_NAME["profile"].choices  # auto | lab | node (runbook_lib/engine/profile.py)
SMOKE = _BY_NAME["smoke"].choices  # the pod step (runbook_lib/steps/pod.py)

# The lab's absolute paths, resolved under `root` at run time.
DEFAULTS = {p.name: p.default for p in PARAMETERS}


def markdown_table() -> str:
    """The parameter table of docs/PARAMETERS.md (written there by tools/build_notebook.py, `make notebook`)."""
    def default(p: Parameter) -> str:
        return '`""` → `lab-root/`' if p.name == "root" else f"`{p.default}`" if p.default != "" else '`""`'
    heads = [say(code) for code in ("parameter.table.name", "parameter.table.default", "parameter.table.meaning")]
    rows = [f"| `{p.name}` | {default(p)} | {bilingual(p)} |" for p in PARAMETERS]
    return "\n".join(["| " + " | ".join(bilingual(h) for h in heads) + " |", "|---|---|---|", *rows])


def _keeps_default(self) -> bool:
    """The node's default runtime is the node's (default_runtime keep, or auto in the node profile): reported,
    never changed, never advised against; in the lab profile (auto) or with runc, the lab's rule: it must be runc.
    A run decides its profile once (engine/profile.py) and resolves auto; these parameters alone, unresolved,
    decide it the same way."""
    if self.default_runtime == "auto":
        from runbook_lib.engine.profile import NODE, decide
        return decide(self).name == NODE
    return self.default_runtime == "keep"


def _as_dict(self) -> dict:
    return asdict(self)


# The validated parameters: one field per parameter, in the table's order, with its default (names and defaults
# written once, in runbook_lib/data/parameters.yaml).
Params = make_dataclass(
    "Params", [(p.name, KINDS[p.kind], field(default=p.default)) for p in PARAMETERS], frozen=True,
    namespace={"__doc__": "The notebook's parameters, validated (validate).", "keeps_default": property(_keeps_default),
               "as_dict": _as_dict})
Params.__module__ = __name__  # make_dataclass leaves it unset before Python 3.12 (pickle, repr, docs)


def default_lab_root() -> Path:
    """The embedded sandbox root: <checkout>/lab-root in a source checkout, else ./runbook-lab-root.
    Never '/': configuring a real node is always an explicit `-p root /`."""
    checkout = Path(__file__).resolve().parents[2]  # runbook_lib/engine/params.py
    if (checkout / "notebooks" / "run.ipynb").exists():
        return checkout / "lab-root"
    return Path.cwd() / "runbook-lab-root"


def _error(code: str, **values) -> ParameterError:
    """A parameter error whose words come from the finding catalog (runbook_lib/data/findings.yaml)."""
    what, fix, _ = words(code, **values)
    return ParameterError(what, fix, code=code)


# --- the one parser --------------------------------------------------------------------------------------------
# Every way in hands validate a value of its own making: papermill's `-p` reads its text first (True, False and
# None, a whole number, a decimal, else the text as given), `runbook ... -p` reads it with that same function of
# papermill's (runbook_lib/cli/args.py), a YAML -f file gives YAML's types, the Python API whatever its caller
# passes. validate judges each kind so that a value and the text it was read from are the same to it ("600" and
# 600, "True" and True, "42" and 42): every way in accepts and refuses the same values, with the same words
# (tests/engine/test_params_one_parser.py runs papermill, `runbook run` and validate on the same texts).

def _text(value) -> str | None:
    """A text parameter's value as text: a string as it is; a number, True, False or None as the word papermill's
    -p read it from (`-p runtime_name 42`, `-p smoke_command True`); a path object as its path. None for anything
    that is no single word (a list, a mapping)."""
    if isinstance(value, str):
        return value
    if value is None or isinstance(value, (bool, int, float)):
        return str(value)
    if isinstance(value, os.PathLike) and isinstance(os.fspath(value), str):
        return os.fspath(value)
    return None


def _shown(value) -> str:
    """A value as a refusal shows it, the same whether it came as text or as what -p read that text as ("1" and 1,
    "True" and True): the text in double quotes, its control characters escaped; a list or a mapping as JSON."""
    text = _text(value)
    if text is not None:
        return quoted(text)
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return quoted(str(value))


def whole_number(value) -> int | None:
    """A whole number of at least 1, given as one or as its text ("600", " 600 "), read as Python's int() reads it
    (as papermill's -p does); None for anything else: True and False, a decimal (600.0), 0, a negative number."""
    if isinstance(value, str):
        try:
            value = int(value)
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        return None
    return value


def _bool(name: str, value) -> bool:
    """True or False, or their text in any case: papermill's -p gives `-p x True` as True but `-p x true` as the
    text "true". Nothing else is a boolean here (yes, on, 1: refused, with how to write it)."""
    if isinstance(value, bool):
        return value
    word = value.strip().lower() if isinstance(value, str) else None
    if word in ("true", "false"):
        return word == "true"
    raise _error("parameter.not_boolean", name=name, value=_shown(value))


def _str(name: str, value) -> str:
    text = _text(value)
    if text is None:
        raise _error("parameter.not_string", name=name, value=_shown(value))
    return text


def _abs(name: str, value: str) -> str:
    if not value.startswith("/"):
        p = _BY_NAME[name]
        raise _error("parameter.not_absolute", name=name, value=_shown(value), example=p.default or p.example)
    if "\x00" in value or "\n" in value:
        raise _error("parameter.forbidden_character", name=name, value=_shown(value))
    return value


def _choice(name: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise _error("parameter.unknown_choice", name=name, value=_shown(value), choices=", ".join(choices),
                     first=choices[0])
    return value


def _int(name: str, value) -> int:
    """A positive whole number: papermill passes `-p time_limit 600` as 600, a -f file may give "600"."""
    number = whole_number(value)
    if number is None:
        raise _error("parameter.not_positive_int", name=name, value=_shown(value))
    return number


def _bool_or_auto(name: str, value) -> bool | str:
    """True, False (as _bool reads them) or the word auto, which the run decides (engine/profile.py)."""
    if isinstance(value, str) and value.strip().lower() == AUTO:
        return AUTO
    try:
        return _bool(name, value)
    except ParameterError:
        raise _error("parameter.not_boolean_or_auto", name=name, value=_shown(value)) from None


def _value(p: Parameter, value):
    if p.kind == "bool":
        return _bool(p.name, value)
    if p.kind == "bool_or_auto":
        return _bool_or_auto(p.name, value)
    if p.kind == "int":
        return _int(p.name, value)
    value = _str(p.name, value)
    if p.kind == "path":
        return _abs(p.name, value)
    if p.kind == "choice":
        return _choice(p.name, value, p.choices)
    return value


# papermill's own parameters (`papermill --inject-paths`): papermill names them, so they are no one's typo
PAPERMILL_OWN = ("PAPERMILL_INPUT_PATH", "PAPERMILL_OUTPUT_PATH")


def refuse_unknown(names, known=None) -> None:
    """The one refusal of a name that is no parameter of the notebook (``known``: run.ipynb's, from the table, by
    default), raised before anything is planned or written, at every way in: validate (the Python API,
    `runbook check`), the validation cell under plain papermill (notebook/session.py: injected_names),
    `runbook run` and `runbook grade` (cli/args.py). Each unknown name with the valid one it nearly spells
    (difflib, k8s/names.closest): `mdoe` → `mode`."""
    known = tuple(DEFAULTS if known is None else known)
    unknown = sorted(set(names) - set(known) - set(PAPERMILL_OWN))
    if not unknown:
        return
    guesses = {name: closest(name, known) for name in unknown}
    shown = [say("parameter.unknown.guess", name=n, guess=g) if g else n for n, g in guesses.items()]
    renames = [say("parameter.unknown.rename", name=n, guess=g) if g else say("parameter.unknown.drop", name=n)
               for n, g in guesses.items()]
    raise _error("parameter.unknown", names=shown, renames=renames, valid=", ".join(known))


def validate(**raw) -> Params:
    """Turn the notebook's variables into Params, or stop with a message that says how to fix the value."""
    refuse_unknown(raw)
    values = {p.name: _value(p, raw.get(p.name, p.default)) for p in PARAMETERS}
    values["root"] = values["root"] or str(default_lab_root())
    if not values["root"].startswith("/"):
        _abs("root", values["root"])
    problem = dns1123_label_problem(values["runtime_name"])
    if problem:
        raise _error("parameter.runtime_name", problem=problem)
    if not values["cdi_spec"].endswith(CDI_EXTENSIONS):  # the CDI scan skips any other name (podman: unresolvable)
        raise _error("parameter.cdi_spec_extension", value=_shown(values["cdi_spec"]),
                     suggestion=posixpath.splitext(values["cdi_spec"])[0] + ".yaml")
    for name in ("containerd_bin", "cri_endpoint"):
        if values[name] and not values[name].removeprefix("unix://").startswith("/"):
            _abs(name, values[name])
    if not values["smoke_command"].strip():
        raise _error("parameter.empty", name="smoke_command", example=DEFAULTS["smoke_command"])
    return Params(**values)


PARAM_NAMES = tuple(f.name for f in fields(Params))
