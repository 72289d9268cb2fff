"""Validate a CDI spec (already parsed into a dict).

Two layers, each finding tagged with where its rule comes from:
- "schema": the upstream CDI JSON schema (runbook_lib/data/cdi/, see SOURCE.md there). fastjsonschema's
  compiled validator decides whether a spec meets it (~30 ms to import and compile, 0.1 ms a spec); only a spec
  it rejects goes to jsonschema, which lists every error with its place (~0.1 s to import). Both are draft-07
  validators of the same shipped schema; tests/real/test_real_cdi_schema.py checks that they agree;
- "reference": what the reference Go implementation (cncf-tags/container-device-interface, pkg/cdi and
  pkg/parser) adds and the schema does not hold: known cdiVersion, `kind` = vendor/class syntax, device
  name syntax, unique and non-empty devices, env "KEY=VALUE", device types and permissions, hook names.
Each finding: {"path": JSON pointer, "rule": "schema" | "reference", "message_ko": ..., "message_en": ...}.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from runbook_lib.cdi.format_extras import skipped_while_importing

# The versions the reference implementation knows (its validSpecVersions).
KNOWN_CDI_VERSIONS = ("0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0")
HOOK_NAMES = ("prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop")
DEVICE_TYPES = ("b", "c", "u", "p")
_VENDOR = re.compile(r"[A-Za-z]([A-Za-z0-9_.-]*[A-Za-z0-9])?")
_CLASS = re.compile(r"[A-Za-z]([A-Za-z0-9_.-]*[A-Za-z0-9])?")
_DEVICE = re.compile(r"[A-Za-z0-9]([A-Za-z0-9_.:-]*[A-Za-z0-9])?")

_TYPE_KO = {"object": "객체(매핑)", "array": "목록", "string": "문자열", "integer": "정수", "boolean": "참/거짓 값",
            "number": "숫자", "null": "null"}
_TYPE_EN = {"object": "an object (mapping)", "array": "a list", "string": "a string", "integer": "an integer",
            "boolean": "a boolean", "number": "a number", "null": "null"}


def pointer(parts) -> str:
    """RFC 6901 JSON pointer of a path ("" is the whole document)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def show(value) -> str:
    """A value as the spec's own (JSON/YAML) syntax, never a Python repr."""
    return json.dumps(value, ensure_ascii=False, default=str)


def _finding(parts, rule, ko, en) -> dict:
    return {"path": pointer(parts), "rule": rule, "message_ko": ko, "message_en": en}


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
    resolved from the package, and format checking on. The schema has no `format` keyword today (a test says
    so, because jsonschema's optional format extras are not loaded here: runbook_lib/cdi/format_extras.py)."""

    with skipped_while_importing():  # else ~3 s of grammar compiling, in a kernel of a JupyterLab environment
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
        parent = pointer(parts) or "최상위"
        return _finding(parts + [missing], "schema", f"필수 항목이 없습니다: {missing} ({parent})",
                        f"The required field {missing} is missing at {pointer(parts) or 'the top level'}.")
    if kind == "type":
        types = [expected] if isinstance(expected, str) else list(expected)
        ko = " 또는 ".join(_TYPE_KO.get(t, t) for t in types)
        en = " or ".join(_TYPE_EN.get(t, t) for t in types)
        return _finding(parts, "schema", f"값은 {ko} 형식이어야 합니다. 지금 값: {show(error.instance)}",
                        f"The value must be {en}, found {show(error.instance)}.")
    if kind in ("minimum", "maximum"):
        bound = "이상이어야" if kind == "minimum" else "이하여야"
        return _finding(parts, "schema", f"값이 범위를 벗어납니다: {show(error.instance)}. {expected} {bound} 합니다.",
                        f"The value {show(error.instance)} is out of range: it must be "
                        f"{'at least' if kind == 'minimum' else 'at most'} {expected}.")
    # any other keyword a newer upstream schema may use: say which rule, with jsonschema's own wording
    return _finding(parts, "schema", f"스키마 규칙에 맞지 않습니다: {kind} ({error.message})",
                    f"The value breaks the schema rule {kind}: {error.message}.")


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
            out.append(_finding(path + ["env", i], "reference",
                                f"환경 변수에 '=' 가 없습니다: {env}. 'KEY=VALUE' 꼴로 쓰세요.",
                                f"The environment variable {env} has no '='; write it as KEY=VALUE."))
    for i, node in _items(edits, "deviceNodes"):
        if isinstance(node, dict):
            out += _device_node(node, path + ["deviceNodes", i])
    for i, mount in _items(edits, "mounts"):
        for key in ("hostPath", "containerPath"):
            if isinstance(mount, dict) and mount.get(key) == "":
                out.append(_finding(path + ["mounts", i, key], "reference", f"마운트의 {key} 값이 비어 있습니다.",
                                    f"The mount's {key} is empty."))
    for i, hook in _items(edits, "hooks"):
        if not isinstance(hook, dict):
            continue
        name = hook.get("hookName")
        if isinstance(name, str) and name not in HOOK_NAMES:
            out.append(_finding(path + ["hooks", i, "hookName"], "reference",
                                f"알 수 없는 훅 이름입니다: {name}. 다음 중 하나를 쓰세요: {', '.join(HOOK_NAMES)}",
                                f"The hook name {name} is unknown; use one of {', '.join(HOOK_NAMES)}."))
        if hook.get("path") == "":
            out.append(_finding(path + ["hooks", i, "path"], "reference", "훅의 path 값이 비어 있습니다.",
                                "The hook's path is empty."))
    return out


def _device_node(node, path) -> list[dict]:
    out = []
    if node.get("path") == "":
        out.append(_finding(path + ["path"], "reference",
                            "장치 노드의 path 값이 비어 있습니다. 컨테이너 안의 경로(예: /dev/nvidia0)를 쓰세요.",
                            "The device node path is empty; give its path inside the container (e.g. /dev/nvidia0)."))
    kind = node.get("type")
    if isinstance(kind, str) and kind not in ("",) + DEVICE_TYPES:
        out.append(_finding(path + ["type"], "reference", f"쓸 수 없는 장치 종류입니다: {kind}. b, c, u, p 중 하나입니다.",
                            f"The device type {kind} is invalid; it is one of b, c, u, p."))
    perms = node.get("permissions")
    if isinstance(perms, str) and perms.strip("rwm"):
        out.append(_finding(path + ["permissions"], "reference",
                            f"장치 권한에는 r, w, m 만 쓸 수 있습니다. 지금 값: {perms}",
                            f"The device permissions {perms} may contain only r, w and m."))
    return out


def _kind(kind) -> list[dict]:
    vendor, slash, cls = kind.partition("/")
    if not slash or not vendor or not cls:
        return [_finding(["kind"], "reference", f"kind 는 '제조사/분류' 꼴이어야 합니다 (예: nvidia.com/gpu). 지금 값: {kind}",
                         f"The kind {kind} must have the form vendor/class (e.g. nvidia.com/gpu).")]
    out = []
    for part, pattern, ko, en in ((vendor, _VENDOR, "제조사(vendor)", "vendor"), (cls, _CLASS, "분류(class)", "class")):
        if not pattern.fullmatch(part):
            out.append(_finding(["kind"], "reference",
                                f"kind 의 {ko} 부분이 규칙에 맞지 않습니다: {part}. 영문자로 시작하고 영문자나 숫자로 "
                                "끝나며, 중간에는 영문자, 숫자, '_', '-', '.' 만 쓸 수 있습니다.",
                                f"The kind's {en} {part} is invalid: it starts with a letter, ends with a letter or "
                                "digit, and holds only letters, digits, '_', '-' and '.'."))
    return out


def _device(dev, path, version) -> list[dict]:
    out = []
    edits = dev.get("containerEdits")
    out += _edits(edits, path + ["containerEdits"])
    if isinstance(edits, dict) and not any(edits.values()):
        out.append(_finding(path + ["containerEdits"], "reference",
                            "장치의 containerEdits 가 비어 있습니다. 장치 노드, 마운트, 환경 변수 등 적어도 하나가 있어야 합니다.",
                            "The device's containerEdits are empty; it needs at least one device node, mount, env, etc."))
    name = dev.get("name")
    if not isinstance(name, str):
        return out
    if not _DEVICE.fullmatch(name):
        out.append(_finding(path + ["name"], "reference",
                            f"장치 이름이 규칙에 맞지 않습니다: {show(name)}. 영문자나 숫자로 시작하고 끝나며, 중간에는 "
                            "영문자, 숫자, '_', '-', '.', ':' 만 쓸 수 있습니다.",
                            f"The device name {show(name)} is invalid: it starts and ends with a letter or digit and "
                            "holds only letters, digits, '_', '-', '.' and ':'."))
    elif name[0].isdigit() and version in KNOWN_CDI_VERSIONS[:4]:
        out.append(_finding(path + ["name"], "reference",
                            f"숫자로 시작하는 장치 이름({name})은 cdiVersion 0.5.0 부터 허용됩니다. 지금 버전: {version}",
                            f"A device name starting with a digit ({name}) needs cdiVersion 0.5.0 or later (not {version})."))
    return out


def reference_findings(spec: dict) -> list[dict]:
    """The reference library's rules, checked where the schema let the value through (so one mistake is one
    finding: a device name that is not a string is the schema's, a malformed one is ours)."""
    out = []
    version = spec.get("cdiVersion")
    if isinstance(version, str) and version not in KNOWN_CDI_VERSIONS:
        out.append(_finding(["cdiVersion"], "reference",
                            f"알려진 cdiVersion 이 아닙니다: {version}. 다음 중 하나를 쓰세요: {', '.join(KNOWN_CDI_VERSIONS)}",
                            f"cdiVersion {version} is not a known version; use one of {', '.join(KNOWN_CDI_VERSIONS)}."))
    if isinstance(spec.get("kind"), str):
        out += _kind(spec["kind"])
    out += _edits(spec.get("containerEdits"), ["containerEdits"])
    if spec.get("devices") == []:
        out.append(_finding(["devices"], "reference", "devices 목록이 비어 있습니다. 장치가 하나 이상 있어야 합니다.",
                            "The devices list is empty; a spec needs at least one device."))
    seen = set()
    for i, dev in _items(spec, "devices"):
        if not isinstance(dev, dict):
            continue
        out += _device(dev, ["devices", i], version)
        name = dev.get("name")
        if isinstance(name, str):
            if name in seen:
                out.append(_finding(["devices", i, "name"], "reference", f"장치 이름이 두 번 나옵니다: {name}",
                                    f"The device name {name} appears twice."))
            seen.add(name)
    return out


def validate_spec(spec: object) -> list[dict]:
    """Every problem found in `spec`: the schema's, then the reference library's; an empty list means valid."""
    found = schema_findings(spec)
    if isinstance(spec, dict):
        found += reference_findings(spec)
    return found
