"""The CDI reference library's unique-device-name rule (runbook_lib/cdi/validate.py, reference_findings), held by a
fast test beside it: before issue 54 only tests/real (test_real_cdi_schema.py, which needs the upstream schema
and a pinned podman) held it. The registry skips a spec whose device names repeat, so none of its devices can be
requested: the finding is at the second name, names it in both languages, and a spec of distinct names has none."""

from __future__ import annotations

from grading_helpers import SPEC, check, failed_steps, lab_root, verdict
from runbook_lib.cdi.validate import validate_spec


def _spec(*names: str) -> dict:
    return {"cdiVersion": "0.5.0", "kind": "nvidia.com/gpu",
            "devices": [{"name": n, "containerEdits": {"deviceNodes": [{"path": f"/dev/nvidia{i}"}]}}
                        for i, n in enumerate(names)]}


def _twice(found: list[dict]) -> list[dict]:
    return [f for f in found if "appears twice" in f["message_en"]]


def test_a_device_name_written_twice_is_found_at_its_second_place():
    (f,) = _twice(validate_spec(_spec("all", "0", "all")))
    assert (f["path"], f["rule"]) == ("/devices/2/name", "reference")
    assert '"all"' not in f["message_en"] and "all" in f["message_en"] and "all" in f["message_ko"]
    assert f["message_ko"] != f["message_en"]


def test_each_repeat_is_its_own_finding_and_distinct_names_have_none():
    assert [f["path"] for f in _twice(validate_spec(_spec("0", "1", "0", "1", "0")))] == \
        ["/devices/2/name", "/devices/3/name", "/devices/4/name"]
    assert validate_spec(_spec("all", "0", "1", "gpu-0")) == []
    assert _twice(validate_spec(_spec("GPU0", "gpu0"))) == []  # names are compared exactly, as the registry does


def test_a_student_spec_with_a_device_listed_twice_fails_step_6_at_that_line(tmp_path):
    root = lab_root(tmp_path)
    text = (root / SPEC).read_text()
    device = "  - name: all\n    containerEdits:\n      deviceNodes:\n        - path: /dev/nvidia0\n"
    assert text.count(device) == 1
    (root / SPEC).write_text(text.replace(device, device + device))  # the device pasted twice
    results = check(root)
    assert failed_steps(results) == [6]
    p = verdict(results, 6, "appears twice")
    assert (p.code, p.pointer) == ("cdi.reference", "/devices/1/name")
    name_lines = [i + 1 for i, line in enumerate((root / SPEC).read_text().splitlines()) if "- name: all" in line]
    assert p.line == name_lines[1]  # the pasted copy's name, not the first
