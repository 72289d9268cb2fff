"""The class as JUnit XML, the format every CI system reads: `<testsuites>`, a `<testsuite>` per student, a
`<testcase>` per step; a failed step has a `<failure>` whose message is the first finding and whose text is
every finding with where, why and the fix (Korean and English); a skipped step has `<skipped>`.

The elements and attributes are those of the JUnit schema CI tools accept (Jenkins' junit-10.xsd, pinned by
tests/fixtures/junit/): no attribute outside it, counts that add up.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from .findings import step_name, step_text
from .grade import PASSING, ClassGrade, Student


def _case(suite: ET.Element, s: Student, rec: dict) -> str:
    case = ET.SubElement(suite, "testcase", name=step_name(rec), classname=f"runbook.{s.label}", time="0")
    status = rec.get("status")
    if status == "skipped":
        msg = (rec.get("message") or {}).get("en", "")
        ET.SubElement(case, "skipped", message=msg)
        return "skipped"
    if status in PASSING:
        return "passed"
    problems = rec.get("problems") or []
    first = (problems[0].get("what") if problems else rec.get("message")) or {}
    failure = ET.SubElement(case, "failure", message=f"{first.get('ko', '')} / {first.get('en', '')}",
                            type=str((problems[0].get("code") if problems else None) or rec.get("id")))
    failure.text = step_text(rec)
    return "failed"


def _suite(root: ET.Element, s: Student) -> None:
    suite = ET.SubElement(root, "testsuite", name=s.label)
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="root", value=s.root)
    ET.SubElement(props, "property", name="feedback", value=s.link())
    counts = {"passed": 0, "failed": 0, "skipped": 0, "error": 0}
    for rec in s.steps:
        counts[_case(suite, s, rec)] += 1
    if s.error:
        case = ET.SubElement(suite, "testcase", name="notebook", classname=f"runbook.{s.label}", time="0")
        err = ET.SubElement(case, "error", message=str(s.error.get("evalue", ""))[:500],
                            type=str(s.error.get("ename", "")))
        err.text = f"{s.error.get('ename')}: {s.error.get('evalue')}"
        counts["error"] += 1
    suite.set("tests", str(sum(counts.values())))
    suite.set("failures", str(counts["failed"]))
    suite.set("errors", str(counts["error"]))
    suite.set("skipped", str(counts["skipped"]))
    suite.set("time", "0")
    # properties must come first in a testsuite; ElementTree keeps insertion order, so it already does


def render(result: ClassGrade) -> bytes:
    root = ET.Element("testsuites", name="runbook grade")
    for s in result.students:
        _suite(root, s)
    totals = {k: sum(int(t.get(k)) for t in root) for k in ("tests", "failures", "errors", "skipped")}
    for k in ("tests", "failures", "errors"):
        root.set(k, str(totals[k]))
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"
