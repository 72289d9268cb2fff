"""runbook_lib.cdi.validate against the upstream CDI JSON schema (tests/fixtures/cdi-schema/, checked here by
python-jsonschema, the reference Python implementation, independently of the package's copy and of the
package's validator, jsonschema-rs).

Every spec the schema rejects, we reject at the same place; every spec the schema accepts, we accept
unless it breaks a rule of the reference Go implementation, which the schema does not hold. The spec the
runbook writes is itself valid for the upstream schema.
"""
import copy
import json

import jsonschema
import jsonschema_rs
import pytest
import yaml
from referencing import Registry
from referencing.jsonschema import DRAFT7

from paths import CDI_SCHEMA
from runbook_lib.cdi import spec as cdi
from runbook_lib.cdi import validate
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
    assert type(schema_validator()) is jsonschema_rs.Draft7Validator


def test_a_schema_of_a_draft_the_validator_does_not_know_is_refused(monkeypatch):
    """Not judged by another draft's rules (jsonschema-rs would take the newest draft for a schema without
    `$schema`): the run stops with the draft named."""
    for draft in ("http://json-schema.org/draft-99/schema#", None):
        schema = {k: v for k, v in SCHEMA.items() if k != "$schema"} | ({"$schema": draft} if draft else {})
        monkeypatch.setattr(validate, "schema_documents", lambda: (schema, DEFS))
        validate.schema_validator.cache_clear()
        try:
            with pytest.raises(RuntimeError, match="draft-99" if draft else r"\$schema"):
                validate_spec(GOOD)
        finally:
            monkeypatch.undo()
            validate.schema_validator.cache_clear()
    assert validate_spec(GOOD) == []


def test_the_schema_uses_no_format_keyword():
    """Whether a `format` is checked depends on the validator (jsonschema-rs checks its own list; python-jsonschema
    on its optional extras, installed in one environment and not in another): a newer schema with `format` must
    fail here, so that the cross-check below is looked at again rather than silently weaker."""
    assert '"format"' not in json.dumps(SCHEMA) + json.dumps(DEFS)


def test_the_schema_allows_no_null():
    """A value JSON has not (a YAML date) reaches jsonschema-rs as null (runbook_lib/cdi/validate.py: _as_json):
    that is the same verdict only while null is none of the types the schema allows."""
    assert '"null"' not in json.dumps(SCHEMA) + json.dumps(DEFS)


def test_a_key_yaml_reads_as_a_number_is_a_string_key_as_in_json():
    assert validate_spec(edit(["annotations"], {1: "x", True: "y"})) == []
    (found,) = validate_spec(edit(["annotations"], {1: 2}))
    assert found["path"] == "/annotations/1" and found["rule"] == "schema"


def test_a_key_that_reads_as_an_index_is_named_as_written():
    """jsonschema-rs's error path gives the key "01" as the number 1: the finding names the spec's own key."""
    for annotations, where in (({"01": 2}, "/annotations/01"), ({"1": "x", "01": 2}, "/annotations/01"),
                               ({"01": "x", "1": 2}, "/annotations/1"), ({"+1": [1]}, "/annotations/+1")):
        (found,) = validate_spec(edit(["annotations"], annotations))
        assert found["path"] == where, (annotations, found)


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
    "major-infinite": edit(["devices", 0, "containerEdits", "deviceNodes", 0, "major"], float("inf")),
    "uid-minus-infinite": edit(["devices", 0, "containerEdits", "deviceNodes", 0, "uid"], float("-inf")),
    "minor-nan": edit(["devices", 0, "containerEdits", "deviceNodes", 0, "minor"], float("nan")),
    "date-in-a-device-name": edit(["devices", 0, "name"], __import__("datetime").date(2024, 1, 1)),
    "many-errors": {"kind": 1, "devices": [{"containerEdits": {"deviceNodes": [{"major": "1", "uid": -1}],
                                                              "env": [1, 2]}}, 3]},
    "annotation-keys-read-as-indexes": edit(["annotations"], {"1": "x", "01": 2, "+1": [1], "007": "y"}),
    "spec-null": None,
    "spec-string": "cdiVersion: 0.5.0",
}


CORPUS = {**VALID, **{n: s for n, (s, _) in (SCHEMA_INVALID | REFERENCE_ONLY).items()}, **EDGE}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_packages_validator_and_python_jsonschema_agree(name):
    """jsonschema-rs judges every spec the package reads; python-jsonschema, the reference implementation, reads
    the same spec here: the same verdict, and a finding at every place it names and nowhere else."""
    spec = CORPUS[name]
    theirs = {pointer(e) for e in schema_errors(spec)}
    ours = {f["path"] for f in validate.schema_findings(spec)}
    assert ours == theirs
