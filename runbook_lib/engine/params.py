"""The notebook's parameters: their defaults, and the validation that runs right after the parameters cell."""

from __future__ import annotations

import os

import posixpath
from dataclasses import asdict, dataclass, field, fields, make_dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from runbook_lib.cdi.spec import CDI_EXTENSIONS
from runbook_lib.findings.errors import ParameterError
from runbook_lib.k8s.names import dns1123_label_problem, quoted
from runbook_lib.findings.problem import words

KINDS = {"str": str, "path": str, "choice": str, "bool": bool, "int": int}  # a kind, and its Params field's type


@dataclass(frozen=True)
class Parameter:
    """One notebook parameter, defined once in runbook_lib/data/parameters.yaml: the parameters cell, the
    validation, the Params fields, the README table and the docs are all written from this
    (tools/build_notebook.py; tests/test_notebook_hygiene.py checks)."""
    name: str
    default: object
    kind: str          # str | bool | path | choice | int
    ko: str            # what it means, in Korean and English (one line each, no '=': papermill drops such lines)
    en: str
    choices: tuple[str, ...] = ()
    example: str = ""  # where the default is "": the value a fix shows

    @property
    def type_name(self) -> str:
        return self.kind if self.kind in ("bool", "int") else "str"

    def cell_line(self) -> str:
        return f"{self.name} = {self.default!r}  # {self.type_name}: {self.ko} / {self.en}"


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
DEFAULT_RUNTIMES = _BY_NAME["default_runtime"].choices  # auto: keep on a real node (root /), runc in a lab root
SMOKE = _BY_NAME["smoke"].choices  # the pod step (runbook_lib/steps/pod.py)

# The lab's absolute paths, resolved under `root` at run time.
DEFAULTS = {p.name: p.default for p in PARAMETERS}


def markdown_table() -> str:
    """The README's parameter table."""
    def default(p: Parameter) -> str:
        return '`""` → `lab-root/`' if p.name == "root" else f"`{p.default}`" if p.default != "" else '`""`'
    rows = [f"| `{p.name}` | {default(p)} | {p.ko} / {p.en} |" for p in PARAMETERS]
    return "\n".join(["| 이름 / name | 기본값 / default | 뜻 / meaning |", "|---|---|---|", *rows])


def _keeps_default(self) -> bool:
    """The node's default runtime is the node's (default_runtime keep, or auto on a real node): reported, never
    changed, never advised against; in a lab root (auto) or with runc, the lab's rule: it must be runc."""
    if self.default_runtime == "auto":
        return os.path.realpath(self.root) == "/"
    return self.default_runtime == "keep"


def _check_only(self) -> bool:
    return self.mode == "check"


def _removing(self) -> bool:
    return self.mode == "remove"


def _as_dict(self) -> dict:
    return asdict(self)


# The validated parameters: one field per parameter, in the table's order, with its default (names and defaults
# written once, in runbook_lib/data/parameters.yaml).
Params = make_dataclass(
    "Params", [(p.name, KINDS[p.kind], field(default=p.default)) for p in PARAMETERS], frozen=True,
    namespace={"__doc__": "The notebook's parameters, validated (validate).", "keeps_default": property(_keeps_default),
               "check_only": property(_check_only), "removing": property(_removing), "as_dict": _as_dict})
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


def _bool(name: str, value) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"  # papermill passes `-p x true` as the string "true"
    raise _error("parameter.not_boolean", name=name, value=quoted(value))


def _str(name: str, value) -> str:
    if not isinstance(value, str):
        raise _error("parameter.not_string", name=name, value=quoted(value), type=type(value).__name__)
    return value


EXAMPLES = {p.name: p.example for p in PARAMETERS if p.example}  # where the default is ""


def _abs(name: str, value: str) -> str:
    if not value.startswith("/"):
        raise _error("parameter.not_absolute", name=name, value=quoted(value),
                     example=DEFAULTS.get(name) or EXAMPLES.get(name, "/usr/bin/..."))
    if "\x00" in value or "\n" in value:
        raise _error("parameter.forbidden_character", name=name, value=quoted(value))
    return value


def _choice(name: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise _error("parameter.unknown_choice", name=name, value=quoted(value), choices=", ".join(choices),
                     first=choices[0])
    return value


def _int(name: str, value) -> int:
    """A positive whole number; papermill passes `-p time_limit 600` as an int, a -f file may give "600"."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise _error("parameter.not_positive_int", name=name, value=quoted(value))
    return value


def _value(p: Parameter, value):
    if p.kind == "bool":
        return _bool(p.name, value)
    if p.kind == "int":
        return _int(p.name, value)
    value = _str(p.name, value)
    if p.kind == "path":
        return _abs(p.name, value)
    if p.kind == "choice":
        return _choice(p.name, value, p.choices)
    return value


def validate(**raw) -> Params:
    """Turn the notebook's variables into Params, or stop with a message that says how to fix the value."""
    unknown = sorted(set(raw) - set(DEFAULTS))
    if unknown:
        raise _error("parameter.unknown", names=", ".join(unknown), valid=", ".join(DEFAULTS))
    values = {p.name: _value(p, raw.get(p.name, p.default)) for p in PARAMETERS}
    values["root"] = values["root"] or str(default_lab_root())
    if not values["root"].startswith("/"):
        _abs("root", values["root"])
    problem = dns1123_label_problem(values["runtime_name"])
    if problem:
        raise _error("parameter.runtime_name", problem=problem)
    if not values["cdi_spec"].endswith(CDI_EXTENSIONS):  # the CDI scan skips any other name (podman: unresolvable)
        raise _error("parameter.cdi_spec_extension", value=quoted(values["cdi_spec"]),
                     suggestion=posixpath.splitext(values["cdi_spec"])[0] + ".yaml")
    for name in ("containerd_bin", "cri_endpoint"):
        if values[name] and not values[name].removeprefix("unix://").startswith("/"):
            _abs(name, values[name])
    if not values["smoke_command"].strip():
        raise _error("parameter.empty", name="smoke_command", example=DEFAULTS["smoke_command"])
    return Params(**values)


PARAM_NAMES = tuple(f.name for f in fields(Params))
