"""runbook_lib.cdi.validate against the upstream CDI JSON schema (tests/fixtures/cdi-schema/, checked here by
jsonschema directly, independently of the package's copy).

Every spec the schema rejects, we reject at the same place; every spec the schema accepts, we accept
unless it breaks a rule of the reference Go implementation, which the schema does not hold. The spec the
runbook writes is itself valid for the upstream schema.
"""
import copy
import json

import jsonschema
import pytest
import yaml
from referencing import Registry
from referencing.jsonschema import DRAFT7

from paths import CDI_SCHEMA
from runbook_lib.cdi import spec as cdi
from runbook_lib.cdi.validate import KNOWN_CDI_VERSIONS, schema_validator, validate_spec

pytestmark = pytest.mark.real
SCHEMA = json.loads((CDI_SCHEMA / "schema.json").read_text())
DEFS = json.loads((CDI_SCHEMA / "defs.json").read_text())
UPSTREAM = jsonschema.Draft7Validator(
    SCHEMA, registry=Registry().with_resource("defs.json", DRAFT7.create_resource(DEFS)),
    format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)

GOOD = {
    "cdiVersion": "0.5.0",
    "kind": "nvidia.com/gpu",
    "devices": [{"name": "all", "containerEdits": {"deviceNodes": [
        {"path": "/dev/nvidia0", "type": "c", "major": 195, "minor": 0, "permissions": "rwm"}]}}],
    "containerEdits": {"env": ["NVIDIA_VISIBLE_DEVICES=void"], "deviceNodes": [{"path": "/dev/nvidiactl"}],
                       "mounts": [{"hostPath": "/usr/lib/x", "containerPath": "/usr/lib/x", "options": ["ro"]}],
                       "hooks": [{"hookName": "createContainer", "path": "/usr/bin/nvidia-ctk", "args": ["x"]}]},
}


def edit(path, value):
    spec = copy.deepcopy(GOOD)
    *parents, last = path
    target = spec
    for p in parents:
        target = target[p]
    if value is DELETE:
        del target[last]
    else:
        target[last] = value
    return spec


DELETE = object()
VALID = {
    "good": GOOD,
    "device-name-with-colon-dot": edit(["devices", 0, "name"], "gpu-0:mig.1"),
    "digit-first-device-name-0.5.0": edit(["devices", 0, "name"], "0"),
    "vendor-with-dots": edit(["kind"], "example.co.uk/fpga_x"),
    "unknown-fields-allowed": edit(["x-extra"], {"anything": 1}),
    **{f"version-{v}": edit(["cdiVersion"], v) for v in KNOWN_CDI_VERSIONS if v >= "0.5.0"},
}
SCHEMA_INVALID = {  # name -> (spec, the JSON pointer both must name)
    "no-cdiVersion": (edit(["cdiVersion"], DELETE), "/cdiVersion"),
    "no-kind": (edit(["kind"], DELETE), "/kind"),
    "no-devices": (edit(["devices"], DELETE), "/devices"),
    "kind-not-string": (edit(["kind"], 7), "/kind"),
    "devices-not-list": (edit(["devices"], {"all": {}}), "/devices"),
    "device-without-name": (edit(["devices", 0, "name"], DELETE), "/devices/0/name"),
    "device-without-edits": (edit(["devices", 0, "containerEdits"], DELETE), "/devices/0/containerEdits"),
    "device-node-without-path": (edit(["devices", 0, "containerEdits", "deviceNodes", 0, "path"], DELETE),
                                 "/devices/0/containerEdits/deviceNodes/0/path"),
    "major-is-string": (edit(["devices", 0, "containerEdits", "deviceNodes", 0, "major"], "195"),
                        "/devices/0/containerEdits/deviceNodes/0/major"),
    "major-is-bool": (edit(["devices", 0, "containerEdits", "deviceNodes", 0, "major"], True),
                      "/devices/0/containerEdits/deviceNodes/0/major"),
    "uid-negative": (edit(["devices", 0, "containerEdits", "deviceNodes", 0, "uid"], -1),
                     "/devices/0/containerEdits/deviceNodes/0/uid"),
    "mount-without-containerPath": (edit(["containerEdits", "mounts", 0, "containerPath"], DELETE),
                                    "/containerEdits/mounts/0/containerPath"),
    "hook-without-hookName": (edit(["containerEdits", "hooks", 0, "hookName"], DELETE),
                              "/containerEdits/hooks/0/hookName"),
    "annotation-not-string": (edit(["annotations"], {"a": 1}), "/annotations/a"),
    "spec-not-object": (["cdiVersion"], ""),
}
REFERENCE_ONLY = {  # accepted by the schema, refused by the reference implementation
    "unknown-version": (edit(["cdiVersion"], "0.9.0"), "/cdiVersion"),
    "version-with-v": (edit(["cdiVersion"], "v0.5.0"), "/cdiVersion"),
    "kind-without-slash": (edit(["kind"], "nvidia.com"), "/kind"),
    "kind-empty-class": (edit(["kind"], "nvidia.com/"), "/kind"),
    "vendor-starts-with-digit": (edit(["kind"], "1nvidia.com/gpu"), "/kind"),
    "class-with-slash": (edit(["kind"], "nvidia.com/gpu/x"), "/kind"),
    "device-name-with-slash": (edit(["devices", 0, "name"], "gpu/0"), "/devices/0/name"),
    "device-name-ends-with-dash": (edit(["devices", 0, "name"], "gpu-"), "/devices/0/name"),
    "device-name-empty": (edit(["devices", 0, "name"], ""), "/devices/0/name"),
    "digit-first-name-before-0.5.0": (edit(["devices", 0, "name"], "0") | {"cdiVersion": "0.4.0"},
                                      "/devices/0/name"),
    "empty-device-list": (edit(["devices"], []), "/devices"),
    "empty-device-edits": (edit(["devices", 0, "containerEdits"], {}), "/devices/0/containerEdits"),
    "duplicate-device": (edit(["devices"], GOOD["devices"] * 2), "/devices/1/name"),
    "env-without-equals": (edit(["containerEdits", "env"], ["NVIDIA"]), "/containerEdits/env/0"),
    "bad-device-type": (edit(["devices", 0, "containerEdits", "deviceNodes", 0, "type"], "x"),
                        "/devices/0/containerEdits/deviceNodes/0/type"),
    "bad-permissions": (edit(["devices", 0, "containerEdits", "deviceNodes", 0, "permissions"], "rwx"),
                        "/devices/0/containerEdits/deviceNodes/0/permissions"),
    "unknown-hook": (edit(["containerEdits", "hooks", 0, "hookName"], "preStart"),
                     "/containerEdits/hooks/0/hookName"),
}


def schema_errors(spec):
    return list(UPSTREAM.iter_errors(spec))


def pointer(error):
    parts = list(error.absolute_path)
    if error.validator == "required":  # jsonschema names the parent; we name the missing field
        parts.append(error.message.split("'")[1])
    return "".join(f"/{p}" for p in parts)


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_for_both(name):
    assert schema_errors(VALID[name]) == []
    assert validate_spec(VALID[name]) == []


@pytest.mark.parametrize("name", sorted(SCHEMA_INVALID))
def test_schema_invalid_for_both_at_the_same_place(name):
    spec, where = SCHEMA_INVALID[name]
    theirs = {pointer(e) for e in schema_errors(spec)}
    ours = {f["path"] for f in validate_spec(spec)}
    assert where in theirs and where in ours, (theirs, ours)
    assert theirs <= ours


@pytest.mark.parametrize("name", sorted(REFERENCE_ONLY))
def test_reference_rules_the_schema_lacks(name):
    spec, where = REFERENCE_ONLY[name]
    assert schema_errors(spec) == []  # the schema alone would let it through
    findings = validate_spec(spec)
    assert [f["path"] for f in findings] == [where], findings
    assert findings[0]["rule"] == "reference"


@pytest.mark.parametrize("name", sorted(SCHEMA_INVALID) + sorted(REFERENCE_ONLY))
def test_every_finding_speaks_both_languages(name):
    spec = (SCHEMA_INVALID | REFERENCE_ONLY)[name][0]
    for f in validate_spec(spec):
        assert any("\uac00" <= ch <= "\ud7a3" for ch in f["message_ko"]), f
        assert not any("\uac00" <= ch <= "\ud7a3" for ch in f["message_en"]), f


def test_the_schema_is_draft_07_and_the_package_validates_with_draft_07():
    assert SCHEMA["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert type(schema_validator()) is jsonschema.Draft7Validator
    assert schema_validator().format_checker is not None  # a `format` a newer schema adds is enforced


def test_the_schema_uses_no_format_keyword():
    """Whether jsonschema checks a `format` depends on its optional extras, installed in one environment (with
    JupyterLab) and not in another (a node): a newer schema with `format` must fail here, so that the verdict is
    made the same everywhere rather than silently weaker on a node."""
    assert '"format"' not in json.dumps(SCHEMA) + json.dumps(DEFS)


def test_the_spec_the_runbook_writes_is_valid_for_the_upstream_schema():
    spec = yaml.safe_load(cdi.build_minimal_spec())
    assert schema_errors(spec) == []
    assert validate_spec(spec) == []
    assert cdi.spec_problems(spec, "/etc/cdi/nvidia.yaml", cdi.build_minimal_spec()) == []


def test_every_schema_error_names_its_json_pointer_and_line():
    text = cdi.build_minimal_spec().replace("- path: /dev/nvidia0", "- hostPath: /dev/nvidia0")
    problems = cdi.spec_problems(yaml.safe_load(text), "/etc/cdi/nvidia.yaml", text)
    assert [p.pointer for p in problems] == ["/devices/0/containerEdits/deviceNodes/0/path"]
    assert all(p.pointer in p.what.en and p.pointer in p.what.ko for p in problems)  # named in both languages
    assert problems[0].line == text.splitlines().index("        - hostPath: /dev/nvidia0") + 1
    assert "필수 항목" in problems[0].what.ko and "required" in problems[0].what.en


EDGE = {  # values where two draft-07 validators could read "integer", "string" or "object" differently
    "major-as-float-integral": edit(["devices", 0, "containerEdits", "deviceNodes", 0, "major"], 195.0),
    "major-as-float": edit(["devices", 0, "containerEdits", "deviceNodes", 0, "major"], 195.5),
    "major-null": edit(["devices", 0, "containerEdits", "deviceNodes", 0, "major"], None),
    "huge-minor": edit(["devices", 0, "containerEdits", "deviceNodes", 0, "minor"], 2 ** 70),
    "filemode-negative": edit(["devices", 0, "containerEdits", "deviceNodes", 0, "fileMode"], -1),
    "yaml-date-version": edit(["cdiVersion"], __import__("datetime").date(2024, 1, 1)),
    "env-not-list": edit(["containerEdits", "env"], "A=B"),
    "env-item-number": edit(["containerEdits", "env"], [1]),
    "hook-args-not-list": edit(["containerEdits", "hooks", 0, "args"], "x"),
    "mount-options-null": edit(["containerEdits", "mounts", 0, "options"], None),
    "annotations-list": edit(["annotations"], ["a"]),
    "devices-of-strings": edit(["devices"], ["all"]),
    "spec-null": None,
    "spec-string": "cdiVersion: 0.5.0",
}


CORPUS = {**VALID, **{n: s for n, (s, _) in (SCHEMA_INVALID | REFERENCE_ONLY).items()}, **EDGE}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_fast_validator_and_jsonschema_agree(name):
    """fastjsonschema decides whether a spec meets the schema; jsonschema (the upstream validator above) lists
    the errors. A spec one accepts and the other rejects would be judged by the wrong one."""
    from runbook_lib.cdi.validate import meets_schema
    assert meets_schema(CORPUS[name]) is (schema_errors(CORPUS[name]) == [])


def test_the_fast_validator_reads_the_shipped_draft_07_schema():
    from runbook_lib.cdi.validate import meets_schema, schema_check
    assert schema_check() is not None
    assert meets_schema(GOOD) is True and meets_schema({}) is False
