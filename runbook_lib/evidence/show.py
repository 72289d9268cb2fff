"""`python -m runbook_lib.show OUT.ipynb`: where an executed notebook is, and its step summary.

Used by `make run`; it reads the machine-readable records the notebook displayed, so it reports exactly what
the run recorded (and says so when the run stopped before its summary)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from runbook_lib.evidence.archive import records
from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import bilingual
from runbook_lib.findings.text import once, under_step, warnings
from runbook_lib.steps.status import verdict


def head_lines(record: dict) -> list[str]:
    """The profile the run decided and why, then a node's layout and why, from its summary record."""
    lines = []
    reason = (record.get("profile") or {}).get("reason")
    if reason:
        lines.append(f"{bilingual(say('label.profile'))}: {bilingual(reason)}")
    if record.get("layout"):
        lines.append(f"{bilingual(say('label.layout'))}: {bilingual(record['layout'])}")
    return lines


def render(path: Path) -> tuple[list[str], int]:
    """The run's lines (its profile first, each step and under a failed or blocked one what to do, each
    sentence once, the result) and the exit code: 0 when the run passed to its end."""
    nb = json.loads(path.read_text())
    steps, summary = records(nb)
    lines = head_lines(summary or {})  # the run's first lines: its profile and why, a node's layout
    lines.append(f"{bilingual(say('label.executed_notebook'))}: {path}")
    final = {str(s["step"]): s for s in (summary or {}).get("steps", [])} or {str(s["step"]): s for s in steps}
    said: set[str] = set()
    for key, rec in final.items():
        number = "   " if key == str(rec.get("id")) else f"{key:>2}."  # restart, pod: a name, no number
        lines.append(f"  {number} [{rec['status']:^9}] {bilingual(rec['title'])}")
        lines += once(under_step(rec), said)
    ok = bool(summary and summary.get("ok") and summary.get("final"))
    if not summary or not summary.get("final"):
        lines.append(f"  {bilingual(say('show.stopped_before_summary'))}")
    warned = len({(p.get("code"), str(p.get("what"))) for rec in final.values() for p in warnings(rec)})
    lines.append(f"{bilingual(say('label.result'))}: {bilingual(verdict(ok))}"
                 + (f", {bilingual(say('label.warnings_under', n=warned))}" if warned else ""))
    return lines, 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    lines, code = render(Path((argv or sys.argv[1:])[0]).resolve())
    print("\n".join(lines))
    return code

if __name__ == "__main__":
    sys.exit(main())
