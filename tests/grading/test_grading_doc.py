"""docs/GRADING.md says what the code does: its grades.json example has the documented shape, and its table of
mistake kinds is the library's (runbook_lib/lab/mistakes.py)."""

from __future__ import annotations

import json
import re

from helpers import REPO

DOC = (REPO / "docs" / "GRADING.md").read_text(encoding="utf-8")
SCHEMAS = REPO / "tests" / "fixtures" / "schemas"


def test_the_grades_json_example_matches_the_schema():
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    (example,) = re.findall(r"```json\n(.*?)```", DOC, re.S)
    results = json.loads((SCHEMAS / "gradescope-results.schema.json").read_text())
    grades = json.loads((SCHEMAS / "grades.schema.json").read_text())
    registry = Registry().with_resource(results["$id"], Resource.from_contents(results))
    Draft202012Validator(grades, registry=registry).validate(json.loads(example))


def test_the_table_of_mistakes_is_the_library_s():
    from runbook_lib.lab.mistakes import MISTAKES

    rows = dict(re.findall(r"^\| `([a-z-]+)` \| .*? \| `([a-z]+)` \|$", DOC, re.M))
    assert rows == {m.kind: m.step for m in MISTAKES}
