"""Across hosts: one row per label (its latest run), one column per step, and the failing step's message.

Built only from the manifests `runbook run` wrote, so a summary can be made anywhere the archives were copied
to (the Ansible controller), without papermill or the notebooks.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path

from .archive import load_manifests
from .messages import display_width

# PASS covers "passed" and "unchanged": both mean the host is in the wanted state; "changed" is shown
# as such because an operator wants to see which hosts a run actually touched.
CELL = {"passed": "PASS", "unchanged": "PASS", "changed": "changed", "failed": "FAIL", "skipped": "skip"}
NOT_RUN = "-"


@dataclass
class Row:
    label: str
    run: str
    ok: bool
    mode: str
    started_at: str
    cells: dict[str, str]
    message: dict[str, str] | None  # the failing step's message (ko/en), or the run's error


@dataclass
class Table:
    columns: list[tuple[str, str]]  # (step id, header like "1 prepare")
    rows: list[Row] = field(default_factory=list)

    @property
    def all_ok(self) -> bool:
        return all(r.ok for r in self.rows)


def _order(step) -> float:
    try:
        return float(step)
    except (TypeError, ValueError):
        return float("inf")


def latest_per_label(archive: Path) -> dict[str, tuple[Path, dict]]:
    latest: dict[str, tuple[Path, dict]] = {}
    for run_dir, man in load_manifests(archive):
        label = run_dir.parent.name
        key = (man.get("started_at") or "", run_dir.name)
        if label not in latest or key > (latest[label][1].get("started_at") or "", latest[label][0].name):
            latest[label] = (run_dir, man)
    return latest


def summarize(archive: Path) -> Table:
    latest = latest_per_label(archive)
    step_of: dict[str, object] = {}  # step id -> its number, as the first manifest that has it says
    for _, man in latest.values():
        for rec in man.get("steps") or []:
            step_of.setdefault(rec.get("id"), rec.get("step"))
    ids = sorted(step_of, key=lambda i: (_order(step_of[i]), str(i)))
    table = Table(columns=[(i, f"{step_of[i]} {i}" if _order(step_of[i]) != float("inf") else str(i))
                           for i in ids])
    for label in sorted(latest):
        run_dir, man = latest[label]
        recs = {r.get("id"): r for r in man.get("steps") or []}
        cells = {i: CELL.get(recs[i].get("status"), str(recs[i].get("status"))) if i in recs else NOT_RUN
                 for i in ids}
        table.rows.append(Row(label, run_dir.name, bool(man.get("ok")), str(man.get("mode") or ""),
                              str(man.get("started_at") or ""), cells, _failure(man)))
    return table


def _failure(man: dict) -> dict[str, str] | None:
    if man.get("ok"):
        return None
    failed = man.get("failed_step")
    if failed:
        msg = failed.get("message") or {}
        prefix = f"[{failed.get('step')} {failed.get('id')}] "
        return {"ko": prefix + msg.get("ko", ""), "en": prefix + msg.get("en", "")}
    err = man.get("error") or {}
    if err:
        text = f"{err.get('ename')}: {err.get('evalue')}"
        return {"ko": "노트북이 멈췄습니다 — " + text, "en": "the notebook stopped — " + text}
    return {"ko": "요약 셀까지 가지 못했습니다", "en": "the run did not reach its summary cell"}


HEAD = ("host", "result", "mode", "run")
HEAD_KO = {"host": "호스트", "result": "결과", "mode": "모드", "run": "실행"}


def _cells(table: Table, row: Row) -> list[str]:
    return [row.label, "OK" if row.ok else "FAILED", row.mode, row.run] + [row.cells[i] for i, _ in table.columns]


def _headers(table: Table) -> list[str]:
    return [f"{HEAD_KO[h]}/{h}" for h in HEAD] + [h for _, h in table.columns]


def _footer(table: Table) -> str:
    bad = sum(not r.ok for r in table.rows)
    return (f"호스트 {len(table.rows)}대 중 {bad}대 실패 / {bad} of {len(table.rows)} hosts failed"
            if bad else f"호스트 {len(table.rows)}대 모두 통과 / all {len(table.rows)} hosts passed")


def render_text(table: Table) -> str:
    grid = [_headers(table)] + [_cells(table, r) for r in table.rows]
    widths = [max(_width(row[c]) for row in grid) for c in range(len(grid[0]))]
    lines = ["  ".join(_pad(cell, w) for cell, w in zip(row, widths)).rstrip() for row in grid]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for r in table.rows:
        if r.message:
            lines.append(f"{r.label}: {r.message['ko']}")
            lines.append(f"{' ' * len(r.label)}  {r.message['en']}")
    lines.append(_footer(table))
    return "\n".join(lines)


_width = display_width


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def render_markdown(table: Table) -> str:
    def esc(text: str) -> str:
        # markdown renders raw HTML, so a message from a host must not become markup
        return html.escape(text, quote=False).replace("|", "\\|").replace("\n", " ")

    heads = _headers(table) + ["실패 내용/failure"]
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for r in table.rows:
        failure = f"{esc(r.message['ko'])}<br>{esc(r.message['en'])}" if r.message else ""
        lines.append("| " + " | ".join([esc(c) for c in _cells(table, r)] + [failure]) + " |")
    return "\n".join(lines + ["", _footer(table)])


def render_html(table: Table) -> str:
    css = ("body{font-family:sans-serif}table{border-collapse:collapse}td,th{border:1px solid #999;"
           "padding:4px 8px}.PASS,.OK{background:#d7f5d7}.FAIL,.FAILED{background:#f8c8c8}"
           ".changed{background:#fff2b3}")
    out = ["<!DOCTYPE html>", '<html lang="ko"><head><meta charset="utf-8">',
           "<title>runbook summary / 런북 요약</title>", f"<style>{css}</style></head><body>",
           "<h1>런북 실행 요약 / runbook summary</h1>", "<table><thead><tr>"]
    out += [f"<th>{html.escape(h)}</th>" for h in _headers(table) + ["실패 내용/failure"]]
    out.append("</tr></thead><tbody>")
    for r in table.rows:
        cells = _cells(table, r)
        tds = [f'<td class="{html.escape(c)}">{html.escape(c)}</td>' for c in cells]
        failure = (f"{html.escape(r.message['ko'])}<br>{html.escape(r.message['en'])}" if r.message else "")
        out.append("<tr>" + "".join(tds) + f"<td>{failure}</td></tr>")
    out += ["</tbody></table>", f"<p>{html.escape(_footer(table))}</p>", "</body></html>"]
    return "\n".join(out)


def render(table: Table, fmt: str) -> str:
    return {"text": render_text, "markdown": render_markdown, "html": render_html}[fmt](table)
