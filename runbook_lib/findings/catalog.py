"""The bilingual catalog (runbook_lib/data/findings.yaml): every user-facing sentence, keyed by a code.

Two kinds of entry: a finding (``what``, ``fix``, optionally ``why`` and ``severity``), and a sentence the runbook
says that is not a finding (a plan's message, a note, a CLI refusal: ``ko`` and ``en`` directly). Templates name
their values (``{folder}``); a value is shown as a person reads it, never as a Python repr: a list as its items
joined by ", ", a bilingual value (Msg, or its {ko, en} record) in each line's own language, nothing for a value that is absent, a boolean as TOML and YAML spell it.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from runbook_lib.findings.messages import Msg


@lru_cache(maxsize=1)
def catalog() -> dict[str, dict]:
    """code -> {"what": {ko, en}, "fix": {ko, en} | None, "why": {ko, en} | None}, or code -> {ko, en}."""
    import yaml  # the project's own file: plain YAML, read once (fs.yamldoc is for files under the root)
    text = (resources.files("runbook_lib") / "data" / "findings.yaml").read_text(encoding="utf-8")
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def entry(code: str) -> dict:
    found = catalog().get(code)
    if found is None:
        raise KeyError(f"code not in runbook_lib/data/findings.yaml: {code}")
    return found


def shown(value, lang: str):
    """A value as a sentence shows it (see the module's docstring)."""
    if value is None:
        return ""
    if isinstance(value, bool):  # as the files the runbook reads spell it (TOML, YAML), never Python's True
        return "true" if value else "false"
    if isinstance(value, Msg):
        return getattr(value, lang)
    if isinstance(value, dict) and set(value) == {"ko", "en"}:  # a bilingual record (Msg.as_dict)
        return value[lang]
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        return ", ".join(str(shown(v, lang)) for v in items)
    return value


class _Values(dict):
    def __missing__(self, key: str) -> str:  # a template names a value the caller did not give: say so
        return f"<{key}>"


def render(template: dict | None, values: dict) -> Msg | None:
    """A {ko, en} template with its values filled in, each language with its own rendering of them. A count
    reads naturally in both: a template may give ``ko_one`` / ``en_one``, said when the value ``n`` is 1
    ("the host passed", not "all 1 hosts passed")."""
    if not template:
        return None
    one = values.get("n") == 1
    return Msg(*(template[f"{lang}_one" if one and f"{lang}_one" in template else lang]
                 .format_map(_Values({k: shown(v, lang) for k, v in values.items()})).strip()
                 for lang in ("ko", "en")))


def words(code: str, **values) -> tuple[Msg, Msg | None, Msg | None]:
    """(what, fix, why) of a finding's code, rendered."""
    found = entry(code)
    return render(found["what"], values), render(found.get("fix"), values), render(found.get("why"), values)


def say(code: str, **values) -> Msg:
    """A sentence of the catalog (an entry of ``ko`` and ``en``), rendered."""
    found = entry(code)
    if "ko" not in found:  # pragma: no cover - a programming error, said plainly
        raise KeyError(f"{code} is a finding (what/fix), not a sentence: use Problem.of")
    return render(found, values)
