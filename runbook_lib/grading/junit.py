"""The class as JUnit XML, the format every CI system reads: `<testsuites>`, a `<testsuite>` per student, a
`<testcase>` per step; a failed step has a `<failure>` whose message is the first finding and whose text is
every finding with where, why and the fix (Korean and English); a blocked step has `<skipped>`, its message
"fix step N first"; a step that does not apply to a lab (skipped there for everyone) is no test case. The
suite's properties `score` and `max_score` are results.json's (runbook_lib/grading/score.py).

The file follows the strictest common schema, Apache Ant's (windyroad's JUnit.xsd, which the tests validate
against, tests/fixtures/junit/): `<testsuites>` without attributes, and every `<testsuite>` with its `id`,
`package`, `timestamp`, `hostname`, counts that add up, and `<system-out>` / `<system-err>`.
"""

from __future__ import annotations

import datetime as _dt
import re
import socket
import xml.etree.ElementTree as ET

from runbook_lib.findings.text import step_name, step_text
from runbook_lib.grading.model import BLOCKED, NOTEBOOK_NAME, ClassGrade, Student, blocked_words
from runbook_lib.grading.score import Scored, scored, total
from runbook_lib.findings.messages import bilingual


def _case(suite: ET.Element, s: Student, counted: Scored) -> str:
    rec = counted.rec
    case = ET.SubElement(suite, "testcase", name=step_name(rec), classname=f"runbook.{s.label}", time="0")
    status = rec.get("status")
    if status == BLOCKED:  # 0 of its points, its words "fix step N first": the earlier step's failure is the one
        ET.SubElement(case, "skipped", message=bilingual(blocked_words(rec)))
        return "skipped"
    if counted.passed:
        return "passed"
    problems = rec.get("problems") or []
    first = (problems[0].get("what") if problems else rec.get("message")) or {}
    failure = ET.SubElement(case, "failure", message=bilingual(first),
                            type=str((problems[0].get("code") if problems else None) or rec.get("id")))
    failure.text = step_text(rec)
    return "failed"


def _timestamp(s: Student) -> str:
    """The schema's ISO 8601 form, without a zone: the run's start in UTC."""
    try:
        when = _dt.datetime.fromisoformat(s.started_at or "")
    except ValueError:
        when = _dt.datetime.now(_dt.timezone.utc)
    if when.tzinfo is not None:
        when = when.astimezone(_dt.timezone.utc)
    return when.strftime("%Y-%m-%dT%H:%M:%S")


def _suite(root: ET.Element, s: Student, index: int) -> None:
    suite = ET.SubElement(root, "testsuite", name=s.label, id=str(index), package="runbook",
                          timestamp=_timestamp(s), hostname=socket.gethostname() or "localhost")
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="root", value=s.root)
    ET.SubElement(props, "property", name="feedback", value=s.link())
    score, top = total(s.steps, s.points)  # the numbers of results.json, grades.json and the class page
    ET.SubElement(props, "property", name="score", value=f"{score:g}")
    ET.SubElement(props, "property", name="max_score", value=f"{top:g}")
    counts = {"passed": 0, "failed": 0, "skipped": 0, "error": 0}
    for counted in scored(s.steps, s.points):  # a step that does not apply to a lab is no test case
        counts[_case(suite, s, counted)] += 1
    if s.error:
        case = ET.SubElement(suite, "testcase", name="grading", classname=f"runbook.{s.label}", time="0")
        err = ET.SubElement(case, "error", message=str(s.error.get("evalue", ""))[:500],
                            type=str(s.error.get("ename", "")))
        err.text = f"{s.error.get('ename')}: {s.error.get('evalue')}"
        counts["error"] += 1
    suite.set("tests", str(sum(counts.values())))
    suite.set("failures", str(counts["failed"]))
    suite.set("errors", str(counts["error"]))
    suite.set("skipped", str(counts["skipped"]))
    suite.set("time", f"{s.duration:.3f}")
    # the schema's order: properties, the testcases, then system-out and system-err (ElementTree keeps it)
    ET.SubElement(suite, "system-out").text = f"feedback: {s.link()}" + (f"\nnotebook: {s.link(NOTEBOOK_NAME)}"
                                                                         if s.notebook else "")
    ET.SubElement(suite, "system-err").text = ""


# XML 1.0 has no way to write these, not even as &#x1b;: one in a student's file (a terminal colour code pasted
# with a value, a form feed) made the whole junit.xml unreadable to every consumer. Shown as \x1b instead.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str | None) -> str | None:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text) if text else text


def _clean(root: ET.Element) -> None:
    for el in root.iter():
        el.text, el.tail = _xml_text(el.text), _xml_text(el.tail)
        for key, value in el.attrib.items():
            el.set(key, _xml_text(value))


def render(result: ClassGrade) -> bytes:
    root = ET.Element("testsuites")
    for index, s in enumerate(result.students):
        _suite(root, s, index)
    _clean(root)
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"
