"""runbook_lib.cdi_validate cross-checked against the upstream CDI JSON schema (read from ../shared).

Every spec the schema rejects, we reject at the same place; every spec the schema accepts, we accept
unless it breaks a rule of the reference Go implementation, which the schema does not hold.
"""
import copy
import json

import pytest

from paths import SHARED
from runbook_lib.cdi_validate import KNOWN_CDI_VERSIONS, validate_spec

pytestmark = pytest.mark.real
jsonschema = pytest.importorskip("jsonschema")
SCHEMA = json.loads((SHARED / "schemas" / "cdi" / "schema.bundled.json").read_text())

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
    return list(jsonschema.Draft7Validator(SCHEMA).iter_errors(spec))


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


def test_validate_needs_no_jsonschema():
    import subprocess
    import sys
    code = ("import sys; sys.modules['jsonschema'] = None; "
            "from runbook_lib.cdi_validate import validate_spec; print(validate_spec({}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "cdiVersion" in out.stdout
