"""Across hosts or students: one row per root (its latest run), one column per step, and every failed step's
message.

Built only from the manifests `runbook run` and `runbook grade` wrote, so a summary can be made anywhere the
archives were copied to (the Ansible controller), without papermill or the notebooks. A row is one root on one
host: two students (or two hosts) that ended up under the same label are never merged into one row; they are
told apart by the one label rule of runbook_lib/evidence/labels.py. Grading views (`--students`, or archives written by
`runbook grade`) say "students" instead of "hosts".
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path

from runbook_lib.evidence.archive import UNFINISHED, load_manifests
from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import Msg, bilingual, display_width
from runbook_lib.steps.status import outcome

# A step's cell is its status's (steps/status.py: PASS covers "passed" and "unchanged", both the wanted state;
# "changed" is shown as such because an operator wants to see which hosts a run actually touched; a blocked
# step waits for an earlier step's fix, and its message says which). A step a run never reached:
NOT_RUN = "-"


@dataclass
class Row:
    label: str
    run: str
    ok: bool
    mode: str
    started_at: str
    cells: dict[str, str]
    failures: list[dict[str, str]]  # every failed step's message (ko/en), or the run's error

    @property
    def message(self) -> dict[str, str] | None:  # the first failure (the rows of older callers)
        return self.failures[0] if self.failures else None


@dataclass
class Table:
    columns: list[tuple[str, str]]  # (step id, header like "1 prepare")
    rows: list[Row] = field(default_factory=list)
    students: bool = False  # a grading view: the rows are students, not hosts

    @property
    def all_ok(self) -> bool:
        return all(r.ok for r in self.rows)


def _order(step) -> float:
    try:
        return float(step)
    except (TypeError, ValueError):
        return float("inf")


def _identity(man: dict) -> tuple[str, ...]:
    from runbook_lib.evidence.labels import identity

    root = str(man.get("root") or (man.get("parameters") or {}).get("root") or "/")
    facts = man.get("host") or {}
    # In a pod the host name is the pod's, new at every DaemonSet rollout and different for the Job: the node's
    # name (NODE_NAME, the downward API in deploy/kubernetes/) is the host the root belongs to.
    host = str(facts.get("node_name") or facts.get("hostname") or "?")
    return identity(root if root.startswith("/") else "/" + root, host)


def latest_per_root(archive: Path) -> dict[tuple[str, tuple[str, ...]], tuple[Path, dict]]:
    """(label, identity) -> the latest run: one entry per root on a host, even when two share a label."""
    latest: dict[tuple[str, tuple[str, ...]], tuple[Path, dict]] = {}
    for run_dir, man in load_manifests(archive):
        folder = run_dir.name if run_dir.parent == archive else run_dir.parent.name  # grade: DIR/<label>/
        key = (str(man.get("label") or folder), _identity(man))
        when = (man.get("started_at") or "", run_dir.name)
        if key not in latest or when > (latest[key][1].get("started_at") or "", latest[key][0].name):
            latest[key] = (run_dir, man)
    return latest


def latest_per_label(archive: Path) -> dict[str, tuple[Path, dict]]:
    """label -> latest run, with the labels told apart where two roots share one (see display_labels)."""
    latest = latest_per_root(archive)
    return dict(zip(display_labels(list(latest)), latest.values()))


def display_labels(keys: list[tuple[str, tuple[str, ...]]]) -> list[str]:
    """The label of each row: its own, unless another root has it too; then the one rule of labels.py decides
    (the folder names, from the parent up, that tell the roots apart), kept after a label the user chose."""
    from runbook_lib.evidence.labels import assign

    out = []
    for label, ident in keys:
        same = [k for k in keys if k[0] == label]
        if len(same) == 1:
            out.append(label)
            continue
        told = assign([i for _, i in same])[[i for _, i in same].index(ident)]
        out.append(told if assign([ident])[0] == label else f"{label} ({told})")
    return out


def summarize(archive: Path, students: bool | None = None) -> Table:
    latest = latest_per_label(archive)
    step_of: dict[str, object] = {}  # step id -> its number, as the first manifest that has it says
    for _, man in latest.values():
        for rec in man.get("steps") or []:
            step_of.setdefault(rec.get("id"), rec.get("step"))
    ids = sorted(step_of, key=lambda i: (_order(step_of[i]), str(i)))
    if students is None:  # archives written by runbook grade are about students
        students = bool(latest) and all(m.get("kind") == "grade" for _, m in latest.values())
    table = Table(columns=[(i, f"{step_of[i]} {i}" if _order(step_of[i]) != float("inf") else str(i))
                           for i in ids], students=students)
    for label in sorted(latest):
        run_dir, man = latest[label]
        cells = step_cells(man.get("steps") or [], ids)
        run = run_dir.name if run_dir.parent != archive else str(man.get("started_at") or "")[:19]  # grade layout
        table.rows.append(Row(label, run, bool(man.get("ok")), str(man.get("mode") or ""),
                              str(man.get("started_at") or ""), cells, _failures(man)))
    return table


def step_cells(steps: list[dict], ids: list[str]) -> dict[str, str]:
    """Each column's cell for one row's step records (id, status): its status's, or NOT_RUN."""
    recs = {r.get("id"): r for r in steps}
    return {i: outcome(recs[i].get("status")).cell if i in recs else NOT_RUN for i in ids}


def step_failures(steps: list[dict]) -> list[dict[str, str]]:
    """Every failed or blocked step's message with "[step id] " before it, the step as the lab numbers it; a
    blocked step's message, "fix step N first", comes after the failure it waits for."""
    return [Msg.join("", [Msg.verbatim(f"[{r.get('step')} {r.get('id')}] "), Msg.of_dict(r.get("message"))]).as_dict()
            for r in steps if r.get("status") in ("failed", "blocked")]


def _failures(man: dict) -> list[dict[str, str]]:
    if man.get("ok"):
        return []
    out = step_failures(man.get("steps") or []) or step_failures([man["failed_step"]] if man.get("failed_step")
                                                                 else [])
    if out:
        return out
    err = man.get("error") or {}
    if err.get("kind") == UNFINISHED:
        return [say("summary.unfinished", error=err.get("evalue")).as_dict()]
    if err:
        return [say("summary.notebook_stopped", error=f"{err.get('ename')}: {err.get('evalue')}").as_dict()]
    return [say("summary.no_summary_cell").as_dict()]


HEAD = ("label.host", "label.result", "label.mode", "label.run")  # the columns before the steps' (catalog codes)


def _cells(table: Table, row: Row) -> list[str]:
    return [row.label, "OK" if row.ok else "FAILED", row.mode, row.run] + [row.cells[i] for i, _ in table.columns]


def _headers(table: Table) -> list[str]:
    heads = ("label.student",) + HEAD[1:] if table.students else HEAD
    return [_narrow(code) for code in heads] + [h for _, h in table.columns]


def _narrow(code: str) -> str:
    """A column's label, narrow as the table's columns are: "호스트/host"."""
    return bilingual(say(code), "/")


def _footer(table: Table) -> str:
    bad, n = sum(not r.ok for r in table.rows), len(table.rows)
    code = f"summary.{'students' if table.students else 'hosts'}.{'failed' if bad else 'passed'}"
    return bilingual(say(code, n=n, bad=bad))


def render_text(table: Table) -> str:
    grid = [_headers(table)] + [_cells(table, r) for r in table.rows]
    widths = [max(_width(row[c]) for row in grid) for c in range(len(grid[0]))]
    lines = ["  ".join(_pad(cell, w) for cell, w in zip(row, widths)).rstrip() for row in grid]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for r in table.rows:
        indent = " " * (_width(r.label) + 2)  # display width: a Korean label takes two columns a letter
        for n, failure in enumerate(r.failures):
            lines.append((f"{r.label}: " if n == 0 else indent) + failure["ko"])
            lines.append(indent + failure["en"])
    lines.append(_footer(table))
    return "\n".join(lines)


_width = display_width


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def render_markdown(table: Table) -> str:
    def esc(text: str) -> str:
        # markdown renders raw HTML, so a message from a host must not become markup
        return html.escape(text, quote=False).replace("|", "\\|").replace("\n", " ")

    heads = _headers(table) + [_narrow("label.failure")]
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for r in table.rows:
        failure = "<br>".join(f"{esc(f['ko'])}<br>{esc(f['en'])}" for f in r.failures)
        lines.append("| " + " | ".join([esc(c) for c in _cells(table, r)] + [failure]) + " |")
    return "\n".join(lines + ["", _footer(table)])


def render_html(table: Table) -> str:
    # keep-all: a browser may otherwise break a Korean word anywhere, even inside a two-syllable header
    css = ("body{font-family:sans-serif}table{border-collapse:collapse;word-break:keep-all}td,th{border:1px solid "
           "#999;padding:4px 8px}th{white-space:nowrap}.PASS,.OK{background:#d7f5d7}.FAIL,.FAILED{background:#f8c8c8}"
           ".changed{background:#fff2b3}")
    out = ["<!DOCTYPE html>", '<html lang="ko"><head><meta charset="utf-8">',
           f"<title>{html.escape(bilingual(say('summary.title')))}</title>", f"<style>{css}</style></head><body>",
           f"<h1>{html.escape(bilingual(say('summary.title')))}</h1>", "<table><thead><tr>"]
    out += [f"<th>{html.escape(h)}</th>" for h in _headers(table) + [_narrow("label.failure")]]
    out.append("</tr></thead><tbody>")
    for r in table.rows:
        cells = _cells(table, r)
        tds = [f'<td class="{html.escape(c)}">{html.escape(c)}</td>' for c in cells]
        failure = "<br>".join(f"{html.escape(f['ko'])}<br>{html.escape(f['en'])}" for f in r.failures)
        out.append("<tr>" + "".join(tds) + f"<td>{failure}</td></tr>")
    out += ["</tbody></table>", f"<p>{html.escape(_footer(table))}</p>", "</body></html>"]
    return "\n".join(out)


def render(table: Table, fmt: str) -> str:
    return {"text": render_text, "markdown": render_markdown, "html": render_html}[fmt](table)
