"""Validate a CDI spec (already parsed into a dict).

Two layers, each finding tagged with where its rule comes from:
- "schema": the upstream CDI JSON schema (runbook_lib/data/cdi/, see SOURCE.md there), checked by jsonschema-rs
  (a Rust validator: ~25 ms to import, ~1 ms to compile the schema, a fraction of a millisecond a spec), which
  lists every error with its place. It validates by the draft the schema names (draft-07);
  tests/real/test_real_cdi_schema.py checks its verdicts and places against python-jsonschema, the reference
  Python implementation;
- "reference": what the reference Go implementation (cncf-tags/container-device-interface, pkg/cdi and
  pkg/parser) adds and the schema does not hold: known cdiVersion, `kind` = vendor/class syntax, device
  name syntax, unique and non-empty devices, env "KEY=VALUE", device types and permissions, hook names.
Each finding: {"path": JSON pointer, "rule": "schema" | "reference", "message_ko": ..., "message_en": ...}, its
words from the catalog (runbook_lib/data/findings.yaml: cdi.rule.*).
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import Msg

# The versions the reference implementation knows (its validSpecVersions).
KNOWN_CDI_VERSIONS = ("0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0")
HOOK_NAMES = ("prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop")
DEVICE_TYPES = ("b", "c", "u", "p")
_VENDOR = re.compile(r"[A-Za-z]([A-Za-z0-9_.-]*[A-Za-z0-9])?")
_CLASS = re.compile(r"[A-Za-z]([A-Za-z0-9_.-]*[A-Za-z0-9])?")
_DEVICE = re.compile(r"[A-Za-z0-9]([A-Za-z0-9_.:-]*[A-Za-z0-9])?")

# A JSON schema type as a sentence names it: the catalog's words (word.type.*); "null" reads the same in both.
_TYPES = {"object": "word.type.object", "array": "word.type.array", "string": "word.type.string",
          "integer": "word.type.integer", "boolean": "word.type.boolean", "number": "word.type.number"}


def _type_words(name: str) -> Msg:
    return say(_TYPES[name]) if name in _TYPES else Msg.verbatim(name)


def pointer(parts) -> str:
    """RFC 6901 JSON pointer of a path ("" is the whole document)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def show(value) -> str:
    """A value as the spec's own (JSON/YAML) syntax, never a Python repr."""
    return json.dumps(value, ensure_ascii=False, default=str)


def _finding(parts, rule, code, **values) -> dict:
    said = say(f"cdi.rule.{code}", **values)
    return {"path": pointer(parts), "rule": rule, "message_ko": said.ko, "message_en": said.en}


# --- the upstream schema ------------------------------------------------------------------------------------
DEFS_URI = "json-schema:///defs.json"  # how jsonschema-rs names the schema's relative "defs.json" $ref


@lru_cache(maxsize=1)
def schema_documents() -> tuple[dict, dict]:
    """The shipped upstream schema and its defs.json, parsed (the validator and strict.py read them)."""
    data = resources.files("runbook_lib") / "data" / "cdi"
    return (json.loads((data / "schema.json").read_text(encoding="utf-8")),
            json.loads((data / "defs.json").read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def schema_validator():
    """jsonschema-rs's validator for the shipped upstream schema: the draft its `$schema` names (draft-07),
    `defs.json` resolved from the package and nothing else (never a URL), formats checked. A schema that names
    no draft, or one jsonschema-rs does not know, is refused rather than judged by another draft's rules."""
    import jsonschema_rs

    schema, defs = schema_documents()
    draft = schema.get("$schema")
    if not isinstance(draft, str):  # jsonschema-rs would take the newest draft: refuse instead
        raise RuntimeError(f"the CDI schema names no JSON schema draft ($schema): {show(draft)}")

    def only_defs(uri: str) -> dict:
        if uri != DEFS_URI:  # the shipped schema refers to nothing else: never fetch a URL
            raise ValueError(f"the CDI schema refers to {uri}, which the package does not ship")
        return defs

    try:  # the draft's meta-schema checks the schema itself, as compiling it does
        return jsonschema_rs.validator_for(schema, retriever=only_defs, validate_formats=True)
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError) as exc:
        raise RuntimeError(f"the CDI schema (JSON schema draft {draft}) cannot be used: {exc}") from None


def _key(key) -> str:
    """A mapping key as JSON has it: YAML also allows numbers, booleans, null and dates as keys."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, (bool, int, float)):
        return json.dumps(key)
    return str(key)


def _as_json(value, parts: tuple, other: dict):
    """``value`` as JSON data for jsonschema-rs, which takes nothing else. A value YAML has and JSON has not (a
    date, bytes) becomes null, and ``other`` keeps it by its path: like null it is none of the types the schema
    allows (tests/real/test_real_cdi_schema.py holds that the schema allows no null), so it fails the same
    `type` rule; its finding shows the value as written."""
    if isinstance(value, dict):
        return {_key(k): _as_json(v, parts + (_key(k),), other) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_as_json(v, parts + (i,), other) for i, v in enumerate(value)]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    other[parts] = value
    return None


# A mapping key jsonschema-rs's error path gives as a number: Rust's reading of an index ("1", "01", "+1").
_INDEX = re.compile(r"\+?[0-9]+")
_NOWHERE = object()


def _follow(doc, parts):
    for part in parts:
        if isinstance(doc, dict):
            keys = [part] if isinstance(part, str) else [k for k in doc if _INDEX.fullmatch(k) and int(k) == part]
            if not keys:
                return _NOWHERE
            doc = doc[keys[0]]
        elif isinstance(doc, list) and isinstance(part, int) and part < len(doc):
            doc = doc[part]
        else:
            return _NOWHERE
    return doc


def _place(doc, parts: list, instance) -> tuple[list, object]:
    """The error's path as the spec's own keys, and the value there. jsonschema-rs gives a key that reads as an
    index ("1", "01") as that number; the key is found again in the spec (of two such keys, "1" and "01", the one
    holding the value the error names)."""
    out = []
    for i, part in enumerate(parts):
        if isinstance(doc, dict) and not isinstance(part, str):
            keys = [k for k in doc if _INDEX.fullmatch(k) and int(k) == part]
            keys.sort(key=lambda k: _follow(doc[k], parts[i + 1:]) != instance)  # stable: doc order otherwise
            part = keys[0]
        out.append(part)
        doc = doc[part]
    return out, doc


def _schema_finding(error, parts: list, value, other: dict) -> dict:
    kind = error.kind  # the finding's path says where; the message says what
    if kind.name == "required":
        # one error per missing field, at the parent; the finding names the field itself
        parent = pointer(parts) or say("cdi.rule.top_level")
        return _finding(parts + [kind.property], "schema", "required", missing=kind.property, parent=parent)
    value = show(other.get(tuple(parts), value))  # a date or bytes as the spec has it, not the null it became
    if kind.name == "type":
        either = _type_words(kind.types[0])
        for t in kind.types[1:]:
            either = say("cdi.rule.either", first=either, second=_type_words(t))
        return _finding(parts, "schema", "type", types=either, value=value)
    if kind.name in ("minimum", "maximum"):
        return _finding(parts, "schema", kind.name, value=value, bound=kind.limit)
    # any other keyword a newer upstream schema may use: say which rule, with jsonschema-rs's own wording
    return _finding(parts, "schema", "other", keyword=kind.name, said=error.message)


def schema_findings(spec: object) -> list[dict]:
    other: dict = {}
    doc = _as_json(spec, (), other)
    check = schema_validator()
    if check.is_valid(doc):
        return []
    placed = [(e, *_place(doc, list(e.instance_path), e.instance)) for e in check.iter_errors(doc)]
    placed.sort(key=lambda found: (list(map(str, found[1])), found[0].kind.name))
    return [_schema_finding(e, parts, value, other) for e, parts, value in placed]


# --- the reference implementation's rules, on what the schema accepted -------------------------------------
def _items(obj, key):
    value = obj.get(key) if isinstance(obj, dict) else None
    return list(enumerate(value)) if isinstance(value, list) else []


def _edits(edits, path) -> list[dict]:
    out = []
    if not isinstance(edits, dict):
        return out
    for i, env in _items(edits, "env"):
        # the upstream schema's containerEdits.env says "ref" for "$ref", so it checks no item; the Go type is
        # []string, and the library cannot decode a spec with anything else there
        if not isinstance(env, str):
            out.append(_finding(path + ["env", i], "reference", "env_not_a_string", value=show(env),
                                fixed=_env_line(env)))
        elif "=" not in env:
            out.append(_finding(path + ["env", i], "reference", "env_without_equals", env=env))
    for i, node in _items(edits, "deviceNodes"):
        if isinstance(node, dict):
            out += _device_node(node, path + ["deviceNodes", i])
    for i, mount in _items(edits, "mounts"):
        for key in ("hostPath", "containerPath"):
            if isinstance(mount, dict) and mount.get(key) == "":
                out.append(_finding(path + ["mounts", i, key], "reference", "mount_empty", key=key))
    for i, hook in _items(edits, "hooks"):
        if not isinstance(hook, dict):
            continue
        name = hook.get("hookName")
        if isinstance(name, str) and name not in HOOK_NAMES:
            out.append(_finding(path + ["hooks", i, "hookName"], "reference", "hook_name_unknown", name=name,
                                names=HOOK_NAMES))
        if hook.get("path") == "":
            out.append(_finding(path + ["hooks", i, "path"], "reference", "hook_path_empty"))
    return out


def _env_line(env) -> str:
    """`- NVIDIA_VISIBLE_DEVICES: void` (a mapping) as the KEY=VALUE line it meant; KEY=VALUE when it is not one."""
    if isinstance(env, dict) and len(env) == 1:
        [(key, value)] = env.items()
        return f"{key}={'' if value is None else value if isinstance(value, str) else show(value)}"
    return "KEY=VALUE"


def _device_node(node, path) -> list[dict]:
    out = []
    if node.get("path") == "":
        out.append(_finding(path + ["path"], "reference", "device_node_path_empty"))
    kind = node.get("type")
    if isinstance(kind, str) and kind not in ("",) + DEVICE_TYPES:
        out.append(_finding(path + ["type"], "reference", "device_type", type=kind, types=DEVICE_TYPES))
    perms = node.get("permissions")
    if isinstance(perms, str) and perms.strip("rwm"):
        out.append(_finding(path + ["permissions"], "reference", "device_permissions", permissions=perms))
    return out


def _kind(kind) -> list[dict]:
    vendor, slash, cls = kind.partition("/")
    if not slash or not vendor or not cls:
        return [_finding(["kind"], "reference", "kind_form", kind=kind)]
    out = []
    for part, pattern, code in ((vendor, _VENDOR, "cdi.rule.kind_part.vendor"), (cls, _CLASS, "cdi.rule.kind_part.class")):
        if not pattern.fullmatch(part):
            out.append(_finding(["kind"], "reference", "kind_part", which=say(code), part=part))
    return out


def _device(dev, path, version) -> list[dict]:
    out = []
    edits = dev.get("containerEdits")
    out += _edits(edits, path + ["containerEdits"])
    if isinstance(edits, dict) and not any(edits.values()):
        out.append(_finding(path + ["containerEdits"], "reference", "container_edits_empty"))
    name = dev.get("name")
    if not isinstance(name, str):
        return out
    if not _DEVICE.fullmatch(name):
        out.append(_finding(path + ["name"], "reference", "device_name", name=show(name)))
    elif name[0].isdigit() and version in KNOWN_CDI_VERSIONS[:4]:
        out.append(_finding(path + ["name"], "reference", "device_name_digit", name=name, version=version))
    return out


def reference_findings(spec: dict) -> list[dict]:
    """The reference library's rules, checked where the schema let the value through (so one mistake is one
    finding: a device name that is not a string is the schema's, a malformed one is ours)."""
    out = []
    version = spec.get("cdiVersion")
    if isinstance(version, str) and version not in KNOWN_CDI_VERSIONS:
        out.append(_finding(["cdiVersion"], "reference", "version_unknown", version=version, versions=KNOWN_CDI_VERSIONS))
    if isinstance(spec.get("kind"), str):
        out += _kind(spec["kind"])
    out += _edits(spec.get("containerEdits"), ["containerEdits"])
    if spec.get("devices") == []:
        out.append(_finding(["devices"], "reference", "devices_empty"))
    seen = set()
    for i, dev in _items(spec, "devices"):
        if not isinstance(dev, dict):
            continue
        out += _device(dev, ["devices", i], version)
        name = dev.get("name")
        if isinstance(name, str):
            if name in seen:
                out.append(_finding(["devices", i, "name"], "reference", "device_name_twice", name=name))
            seen.add(name)
    return out


def validate_spec(spec: object) -> list[dict]:
    """Every problem found in `spec`: the schema's, then the reference library's; an empty list means valid."""
    found = schema_findings(spec)
    if isinstance(spec, dict):
        found += reference_findings(spec)
    return found
