"""Validate a CDI spec (already parsed into a dict).

Two layers, each finding tagged with where its rule comes from:
- "schema": the upstream CDI JSON schema (runbook_lib/data/cdi/, see SOURCE.md there). fastjsonschema's
  compiled validator decides whether a spec meets it (~30 ms to import and compile, 0.1 ms a spec); only a spec
  it rejects goes to jsonschema, which lists every error with its place (~0.1 s to import). Both are draft-07
  validators of the same shipped schema; tests/real/test_real_cdi_schema.py checks that they agree;
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
DRAFT_07 = "http://json-schema.org/draft-07/schema#"


@lru_cache(maxsize=1)
def schema_documents() -> tuple[dict, dict]:
    """The shipped upstream schema and its defs.json, parsed (the validators and strict.py read them)."""
    data = resources.files("runbook_lib") / "data" / "cdi"
    return (json.loads((data / "schema.json").read_text(encoding="utf-8")),
            json.loads((data / "defs.json").read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def schema_check():
    """fastjsonschema's validator for the shipped schema (it raises at the first error), or None when the schema
    names a draft other than draft-07: then jsonschema, which knows every draft, decides alone."""
    schema, defs = schema_documents()
    if schema.get("$schema") != DRAFT_07:
        return None
    import fastjsonschema

    def only_defs(uri: str) -> dict:
        if uri != "defs.json":  # the shipped schema refers to nothing else: never fetch a URL
            raise ValueError(f"the CDI schema refers to {uri}, which the package does not ship")
        return defs

    return fastjsonschema.compile(schema, handlers={"": only_defs})


def meets_schema(spec: object) -> bool | None:
    """True or False by fastjsonschema; None when only jsonschema can tell (another draft)."""
    check = schema_check()
    if check is None:
        return None
    from fastjsonschema import JsonSchemaValueException

    try:
        check(spec)
    except JsonSchemaValueException:
        return False
    return True


@lru_cache(maxsize=1)
def schema_validator():
    """A validator for the shipped upstream schema: the class its `$schema` names (draft-07), `defs.json`
    resolved from the package, and format checking on. jsonschema is imported here only, when a spec has
    failed fastjsonschema's check (meets_schema): with JupyterLab installed, its import compiles an RFC 3987
    grammar for its "iri" format checker, seconds of CPU a run that meets the schema never pays."""

    from jsonschema.validators import validator_for
    from referencing import Registry
    from referencing.jsonschema import specification_with

    schema, defs = schema_documents()
    cls = validator_for(schema, default=None)  # Draft7Validator for today's draft-07 schema
    if cls is None:  # a draft this jsonschema does not know: refuse, rather than judge by another draft's rules
        raise RuntimeError(f"unknown JSON schema draft in the CDI schema: {schema.get('$schema')}")
    cls.check_schema(schema)
    spec = specification_with(schema["$schema"])  # the same draft for defs.json, which has no $schema
    registry = Registry().with_resource("defs.json", spec.create_resource(defs))
    return cls(schema, registry=registry, format_checker=cls.FORMAT_CHECKER)


def _schema_finding(error) -> dict:
    parts = list(error.absolute_path)  # the finding's path says where; the message says what
    kind, expected = error.validator, error.validator_value
    if kind == "required":
        # one error per missing field, at the parent; the finding names the field itself
        missing = next((k for k in expected if k not in error.instance and repr(k) in error.message), error.message)
        parent = pointer(parts) or say("cdi.rule.top_level")
        return _finding(parts + [missing], "schema", "required", missing=missing, parent=parent)
    if kind == "type":
        types = [expected] if isinstance(expected, str) else list(expected)
        either = _type_words(types[0])
        for t in types[1:]:
            either = say("cdi.rule.either", first=either, second=_type_words(t))
        return _finding(parts, "schema", "type", types=either, value=show(error.instance))
    if kind in ("minimum", "maximum"):
        return _finding(parts, "schema", kind, value=show(error.instance), bound=expected)
    # any other keyword a newer upstream schema may use: say which rule, with jsonschema's own wording
    return _finding(parts, "schema", "other", keyword=kind, said=error.message)


def schema_findings(spec: object) -> list[dict]:
    if meets_schema(spec):
        return []
    errors = sorted(schema_validator().iter_errors(spec), key=lambda e: (list(map(str, e.absolute_path)), e.validator))
    return [_schema_finding(e) for e in errors]


# --- the reference implementation's rules, on what the schema accepted -------------------------------------
def _items(obj, key):
    value = obj.get(key) if isinstance(obj, dict) else None
    return list(enumerate(value)) if isinstance(value, list) else []


def _edits(edits, path) -> list[dict]:
    out = []
    if not isinstance(edits, dict):
        return out
    for i, env in _items(edits, "env"):
        if isinstance(env, str) and "=" not in env:
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
