"""One result type for every step (its findings are runbook_lib.findings.problem.Problem): it feeds the notebook's checks, the summary table, the machine-readable
record, the archive manifest and the exit code, so none of them computes a verdict of its own."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field

from runbook_lib.findings.catalog import say
from runbook_lib.findings.problem import Problem
from runbook_lib.findings.text import lines as finding_lines
from runbook_lib.findings.messages import Msg, bilingual, display_width
from runbook_lib.steps.base import BLOCKED, CHANGED, FAILED, PASSED, SKIPPED, UNCHANGED  # noqa: F401 - the statuses, defined with the steps
from runbook_lib.steps.status import outcome

WARNING_MARK = "⚠"  # a finding shown that does not fail its step; an error's mark is a failed step's (status.py)

STEP_MIME = "application/vnd.runbook.step+json"
SUMMARY_MIME = "application/vnd.runbook.summary+json"


def record_text(record: dict) -> str:
    """A record (a step's, the summary's, the status box's) as a notebook output holds it: its JSON text, one
    string. nbformat keeps a `+json` output's value as it is given; as an object, every save of the notebook
    copies, validates and indents each of its ~50 keys and values with Python's own JSON writer, and papermill
    saves the whole notebook around every cell (~75 times a run): as one string, each save copies one value.
    Read it back with `read_record`."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def read_record(value) -> dict:
    """A record read from a notebook output: its JSON text (`record_text`), or the object a notebook written by
    an earlier runbook (or re-saved by another tool that parsed it) holds."""
    return json.loads(value) if isinstance(value, str) else value


@dataclass
class StepResult:
    step: int | str
    id: str
    title: Msg
    status: str
    message: Msg
    files: list[dict] = field(default_factory=list)
    diff: str | None = None
    backup: str | None = None
    notes: list[Msg] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    evidence: dict[str, str] = field(default_factory=dict)  # lab path -> what was read back from disk

    @property
    def failed(self) -> bool:
        return self.status == FAILED

    def as_record(self) -> dict:
        """The machine-readable record. No diff: the plan's view above it shows the diff once, in HTML; the
        record is what the manifest, grading and `runbook summary` read, and none of them reads a diff
        (papermill saves the whole notebook around every cell, so a third copy was paid ~70 times a run)."""
        return {
            "step": self.step, "id": self.id, "title": self.title.as_dict(), "status": self.status,
            "message": self.message.as_dict(), "files": self.files, "backup": self.backup,
            "notes": [n.as_dict() for n in self.notes], "problems": [p.as_dict() for p in self.problems],
            "evidence": self.evidence,
        }

    def text(self, shown: tuple[Msg, ...] = ()) -> str:
        """The record as text. `shown`: what the output just above already says (the step's plan, in its check
        cell): the message and the notes among it are not said twice, unless the step failed or is blocked."""
        said_above = set(shown) if self.status not in (FAILED, BLOCKED) else set()
        lines = [f"[{self.status.upper()}] {self.step}. {bilingual(self.title)}"]
        if self.message not in said_above:
            lines += [f"  {self.message.ko}", f"  {self.message.en}"]
        for n in self.notes:
            if n not in said_above:
                lines += [f"  - {n.ko}", f"    {n.en}"]
        for p in self.problems:
            lines += finding_lines(p, f"{outcome(FAILED).mark if p.is_error else WARNING_MARK} ", indent="  ")
        if self.backup:
            lines.append(f"  backup: {self.backup}")
        for path, text in self.evidence.items():
            lines.append(f"  ── {path}")
            lines += [f"     {line}" for line in text.rstrip("\n").split("\n")]
        return "\n".join(lines)


def summary_rows(results: list[StepResult]) -> list[tuple[str, str, str, str]]:
    return [(str(r.step), bilingual(r.title), r.status, bilingual(r.message)) for r in results]


def summary_text(results: list[StepResult]) -> str:
    rows = summary_rows(results)
    width = max((display_width(r[1]) for r in rows), default=10)
    pad = lambda text: text + " " * (width - display_width(text))  # noqa: E731 - Hangul takes two columns
    out = [f"{'#':>3}  {pad('step')}  status"]
    # a blocked step says which step to fix first ("fix step 3 first"), the words of its message
    out += [f"{s:>3}  {pad(t)}  {st}" + (f"  ({m})" if st == BLOCKED else "") for s, t, st, m in rows]
    return "\n".join(out)


def summary_html(results: list[StepResult], *, ok: bool, mode: str) -> str:
    td = "<td style='text-align:left;vertical-align:top'>"  # JupyterLab right-aligns a rendered table's cells
    rows = "".join(
        f"<tr>{td}{html.escape(str(r.step))}</td>{td}{html.escape(r.title.ko)}<br><small>{html.escape(r.title.en)}</small></td>"
        f"<td style='text-align:left;vertical-align:top;color:{outcome(r.status).colour};font-weight:bold'>{r.status}</td>"
        f"{td}{html.escape(r.message.ko)}<br><small>{html.escape(r.message.en)}</small></td></tr>"
        for r in results)
    verdict = bilingual(say("result.all_passed" if ok else "result.some_failed"))
    heads = ["#"] + [bilingual(say(code)) for code in ("label.step", "label.status", "label.message")]
    return (f"<p><b>{html.escape(verdict)}</b> (mode={html.escape(mode)})</p>"
            "<table><tr>" + "".join(f"<th style='text-align:left'>{html.escape(h)}</th>" for h in heads) + "</tr>"
            f"{rows}</table>")
