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


# The catalog as JSON beside the YAML, with the YAML's digest: reading it takes ~3 ms where the YAML takes ~30 ms
# of the notebook's first cell. Written by write_cache() (make does it, as it compiles the bytecode; not committed),
# read only while its digest is the YAML's: an edited findings.yaml is read as YAML until the cache is written again.
CACHE = "findings.json"


@lru_cache(maxsize=1)
def catalog() -> dict[str, dict]:
    """code -> {"what": {ko, en}, "fix": {ko, en} | None, "why": {ko, en} | None}, or code -> {ko, en}."""
    data = resources.files("runbook_lib") / "data"
    text = (data / "findings.yaml").read_text(encoding="utf-8")
    return cached(data / CACHE, text) or parse(text)


def parse(text: str) -> dict[str, dict]:
    import yaml  # the project's own file: plain YAML, read once (fs.yamldoc is for files under the root)
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def digest(text: str) -> str:
    import hashlib
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cached(path, text: str) -> dict | None:
    """The catalog from the JSON cache at ``path`` when it was made from ``text``; None otherwise."""
    import json
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("yaml_sha256") != digest(text) or not isinstance(doc.get("catalog"), dict):
        return None
    return doc["catalog"]


def write_cache() -> str:
    """Write the JSON cache of the package's findings.yaml (atomically); its path."""
    import json
    import os
    import tempfile
    from pathlib import Path

    data = Path(str(resources.files("runbook_lib") / "data"))
    text = (data / "findings.yaml").read_text(encoding="utf-8")
    body = json.dumps({"yaml_sha256": digest(text), "catalog": parse(text)}, ensure_ascii=False)
    fd, tmp = tempfile.mkstemp(dir=data, prefix=".findings-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(body)
    os.chmod(tmp, 0o644)  # read by whoever runs the package, as the YAML is
    os.replace(tmp, data / CACHE)
    return str(data / CACHE)


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
