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
from runbook_lib.findings.text import under_step
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


def main(argv: list[str] | None = None) -> int:
    path = Path((argv or sys.argv[1:])[0]).resolve()
    nb = json.loads(path.read_text())
    steps, summary = records(nb)
    for line in head_lines(summary or {}):  # the run's first lines: its profile and why, a node's layout
        print(line)
    print(f"{bilingual(say('label.executed_notebook'))}: {path}")
    final = {str(s["step"]): s for s in (summary or {}).get("steps", [])} or {str(s["step"]): s for s in steps}
    for key, rec in final.items():
        number = "   " if key == str(rec.get("id")) else f"{key:>2}."  # restart, pod: a name, no number
        print(f"  {number} [{rec['status']:^9}] {bilingual(rec['title'])}")
        for line in under_step(rec):
            print(line)
    ok = bool(summary and summary.get("ok") and summary.get("final"))
    if not summary or not summary.get("final"):
        print(f"  {bilingual(say('show.stopped_before_summary'))}")
    print(f"{bilingual(say('label.result'))}: {bilingual(verdict(ok))}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
