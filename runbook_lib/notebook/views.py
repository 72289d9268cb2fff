"""The records a run shows: a step's result, the summary, and the status box at the top."""

from __future__ import annotations

import html
import uuid

from runbook_lib.engine.result import STEP_MIME, SUMMARY_MIME, StepResult, record_text, summary_html, summary_text
from runbook_lib.engine.run import Run
from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import Msg, bilingual
from runbook_lib.findings.problem import Problem
from runbook_lib.findings.text import lines as finding_lines
from runbook_lib.notebook.session import SESSION, _display, _take_notes, say_on_terminal
from runbook_lib.steps.base import FAILED, PASSED, SKIPPED
from runbook_lib.steps.expect import Expect
from runbook_lib.steps.status import outcome, verdict

STATUS_MIME = "application/vnd.runbook.status+json"


def show(result: StepResult, checks: Expect | None = None, shown: tuple[Msg, ...] = ()) -> None:
    """The step's record and its text (no HTML copy of the same text: papermill saves the whole notebook
    around every cell, so every byte of output is paid for again and again). `shown`: what the step's plan
    output above already says, not said again in the text (the record keeps all of it)."""
    text = result.text(shown)
    if checks and checks.checks:
        text = bilingual(say("label.checks")) + "\n" + checks.text() + "\n" + text
    _display({STEP_MIME: record_text(result.as_record()), "text/plain": "\n".join(_take_notes() + [text])})


def summary(rb: Run, *, final: bool = True) -> None:
    """The last cell: the only reliable proof in an archived notebook that the run reached the end."""
    if hasattr(rb, "ensure_current"):  # the notebook's run context: a run a later nb.start ended says so
        rb.ensure_current()
    results = in_order(rb)
    missing = not_run(rb) if final else []
    record = {"ok": rb.ok() and not rb.refused and not missing, "final": final, "mode": rb.p.mode,
              "root": str(rb.target.root), "refused": rb.refused, "runbook_version": __import__("runbook_lib").__version__,
              "params": rb.p.as_dict(), "profile": rb.profile.as_dict(), "steps": [r.as_record() for r in results]}
    if rb.layout_reason is not None:  # why layout=auto chose what it chose (a node's), read by the terminals
        record["layout"] = rb.layout_reason.as_dict()
    if missing:
        record["not_run"] = missing
    text = summary_text(results)
    head = bilingual(say("label.summary" if final else "label.summary_until_stop"))
    late = ""
    if missing:  # the summary cell run early (JupyterLab): this table is not the end of the run
        p = Problem.of("notebook.not_run", steps=", ".join(map(str, missing)))
        late = "\n".join(finding_lines(p, "✗ "))
        text += "\n" + late
    _display({SUMMARY_MIME: record_text(record), "text/plain": f"{head}\n{text}",
              "text/html": f"<h4>{head}</h4>" + summary_html(results, ok=record["ok"], mode=rb.p.mode)
              + (f"<pre>{html.escape(late)}</pre>" if late else "")})
    to_terminal(rb, results, ok=record["ok"])


def head_lines(rb: Run) -> list[str]:
    """The run's first lines in a terminal: its profile and why (engine/profile.py), then, on a node, the layout
    and why, each under its own label."""
    lines = [f"{bilingual(say('label.profile'))}: {bilingual(rb.profile.reason)}"]
    if rb.layout_reason is not None:
        lines.append(f"{bilingual(say('label.layout'))}: {bilingual(rb.layout_reason)}")
    return lines


def refusal_text(rb: Run) -> str:
    """Why an apply run refused before its first write: once, then each refusing finding with its fix."""
    refused = say("notebook.run_refused_nothing_written")
    lines = [refused.ko, refused.en, ""]
    shown: list[Problem] = []
    for step, p in rb.refusals():
        if any(p.same(q) for q in shown):
            continue  # one unreadable file refuses several steps: say it once
        shown.append(p)
        lines += [f"✗ {step.NUMBER}. {bilingual(step.TITLE)}"] + finding_lines(p, indent="  ")
    return "\n".join(lines)


def terminal_lines(rb: Run, results: list[StepResult], *, ok: bool) -> list[str]:
    """The run in a few lines for the terminal of a plain `papermill` (which shows no cell's output): the
    profile and why first, a refusal's reason next, one line per step (its mark, number, status and message;
    steps that say the same are one line, each sentence said once), the result."""
    lines = head_lines(rb)
    if rb.refused:  # the reason first; the refusing steps' own lines would only say it again
        lines += refusal_text(rb).split("\n")
        results = [r for r in results if not rb.plans.get(r.id) or not rb.plans[r.id].refusals]
    groups: dict[tuple[str, str, str], tuple[Msg, list[str]]] = {}
    for r in results:
        groups.setdefault((r.status, r.message.ko, r.message.en), (r.message, []))[1].append(str(r.step))
    for (status, _, _), (message, steps) in groups.items():
        said = outcome(status)
        lines.append(f"  {said.mark} {', '.join(steps):>7}  {bilingual(said.said)}: {bilingual(message)}")
    # a warning is a finding too (a runtime whose cgroup driver is not the default runtime's): said under its
    # step's number and counted in the result line, never only in a cell
    warned: list[Problem] = []
    for r in results:
        for p in r.problems:
            if not p.is_error and not any(p.same(q) for q in warned):
                warned.append(p)
                lines.append(f"  ! {str(r.step):>7}  {bilingual(p.what)}")
    result = f"{bilingual(say('label.result'))}: {bilingual(verdict(ok))} (mode={rb.p.mode})"
    if warned:
        result += f", {bilingual(say('label.warnings', n=len(warned)))}"
    lines.append(result)
    return lines


def to_terminal(rb: Run, results: list[StepResult], *, ok: bool) -> None:
    """The run's lines (terminal_lines) on the terminal of a plain `papermill` (session.say_on_terminal)."""
    say_on_terminal(terminal_lines(rb, results, ok=ok))


def in_order(rb: Run) -> list[StepResult]:
    """The results so far, in the order of the steps."""
    return [rb.results[s.id] for s in rb.steps if s.id in rb.results]


def not_run(rb: Run) -> list:
    """The steps whose cells have not run yet (a step of a refused run has its refusal as its result)."""
    return [s.number for s in rb.steps if s.id not in rb.results]


def _status(rb: Run, state: str, message: Msg, *, failed: StepResult | None = None, head: dict | None = None) -> None:
    """The run's status box, shown once near the top, above the plan overview `head` (in the same output), and
    updated in place as the run goes on. A failed run is read there first: which step failed, its message, how
    to fix it, and what was done before it."""
    # the steps done, and their table, once the run has stopped: while it runs, the box is one line that
    # every step rewrites (and papermill saves again at every cell)
    stopped = state in ("failed", "finished")
    done = in_order(rb) if stopped else []
    steps = [{"step": r.step, "status": r.status, "title": r.title.as_dict()} for r in done]
    ko, en = message.ko, message.en
    record = {"state": state, "mode": rb.p.mode, "message": message.as_dict(), "steps": steps,
              "failed": failed.as_record() if failed else None}
    text = [f"[{state.upper()}] {ko}", f"         {en}"]
    if failed:
        text += ["", failed.text()]
    # the status table's colours (steps/status.py): a failed run as a failed step, a finished one as a passed step
    colour = outcome({"failed": FAILED, "finished": PASSED}.get(state, SKIPPED)).colour
    body = (f"<div style='border:2px solid {colour};padding:6px 10px'><b style='color:{colour}'>{html.escape(ko)}<br>"
            f"{html.escape(en)}</b>" + (f"<pre>{html.escape(failed.text())}</pre>" if failed else ""))
    if done:
        body += summary_html(done, ok=rb.ok(), mode=rb.p.mode)
    new = SESSION.status_id is None or head is not None
    if new:
        SESSION.status_head = head or {}
    above = SESSION.status_head
    bundle = {STATUS_MIME: record_text(record),  # the box first: a failed run is read at the top
              "text/plain": "\n".join(text + ([above["text/plain"]] if above else [])),
              "text/html": body + "</div>" + above.get("text/html", "")}
    if new:
        SESSION.status_id = f"runbook-status-{uuid.uuid4().hex}"
        _display(bundle, display_id=SESSION.status_id)
    else:
        _display(bundle, display_id=SESSION.status_id, update=True)
