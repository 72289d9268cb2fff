"""What the notebook's cells call: start the run, run a step and show it, and the final summary.

Every step shows one output with three representations: the machine-readable record (a custom mimetype,
read by the archive and `runbook summary`), HTML for people, and text/plain for everything else.
"""

from __future__ import annotations

import html

from .errors import RunbookError
from .params import validate
from .result import FAILED, SUMMARY_MIME, STEP_MIME, StepResult, summary_html, summary_text
from .steps import Runbook, StepFailed


def _display(bundle: dict) -> None:
    try:
        from IPython.display import display
    except ImportError:  # outside a kernel (tests): print the text form
        print(bundle["text/plain"])
        return
    display(bundle, raw=True)


def start(**params) -> Runbook:
    """The validation cell: check every parameter, then take the root's lock."""
    rb = Runbook(validate(**params))
    rb.start()
    _display({"text/plain": f"root = {rb.target.root}  mode = {rb.p.mode}  runtime = {rb.p.runtime_name}",
              "text/html": f"<p><b>root</b> <code>{html.escape(str(rb.target.root))}</code> · <b>mode</b> {rb.p.mode} · "
                           f"<b>runtime</b> {html.escape(rb.p.runtime_name)}</p>"})
    return rb


def step(rb: Runbook, n: int) -> None:
    """The step's action: apply mode writes (and shows the diff), check mode only plans. Returns nothing, so
    the cell shows only what it displayed (the result stays in rb.results)."""
    result = rb.act(n)
    if result.diff:
        _display({"text/plain": result.diff,
                  "text/html": f"<details open><summary>diff</summary><pre>{html.escape(result.diff)}</pre></details>"})
    for note in result.notes:
        _display({"text/plain": f"{note.ko}\n{note.en}"})


def check(rb: Runbook, n: int) -> None:
    """Read the result back from disk and give the verdict. In apply mode a failed step also shows the
    summary so far and stops the run, so papermill exits non-zero and the archived notebook says why."""
    result = rb.confirm(n)
    show(result)
    if result.status == FAILED and not rb.p.check_only:
        summary(rb, final=False)
        rb.finish()  # the run stops here: release the root's lock even if the kernel lives on (JupyterLab)
        raise StepFailed(f"step {n} failed: {result.message.ko} / {result.message.en}")


def show(result: StepResult) -> None:
    colour = "#cf222e" if result.failed else "#1a7f37"
    body = html.escape(result.text())
    _display({STEP_MIME: result.as_record(), "text/plain": result.text(),
              "text/html": f"<pre style='border-left:4px solid {colour};padding-left:8px'>{body}</pre>"})


def summary(rb: Runbook, *, final: bool = True) -> None:
    """The last cell: the only reliable proof in an archived notebook that the run reached the end."""
    results = [rb.results[k] for k in sorted(rb.results, key=str)]
    ok = rb.ok()
    record = {"ok": ok, "final": final, "mode": rb.p.mode, "root": str(rb.target.root),
              "runbook_version": __import__("runbook_lib").__version__, "params": rb.p.as_dict(),
              "steps": [r.as_record() for r in results]}
    text = summary_text(results)
    head = "요약 / summary" if final else "실패 전까지의 요약 / summary up to the failure"
    _display({SUMMARY_MIME: record, "text/plain": f"{head}\n{text}",
              "text/html": f"<h4>{head}</h4>" + summary_html(results, ok=ok, mode=rb.p.mode)})


def finish(rb: Runbook) -> None:
    """Release the lock; in check mode, fail the run when any step failed (all steps were evaluated)."""
    rb.finish()
    if not rb.ok():
        failed = [str(r.step) for r in rb.results.values() if r.failed]
        raise StepFailed(f"실패한 단계 / failed steps: {', '.join(failed)}")


__all__ = ["start", "step", "check", "show", "summary", "finish", "RunbookError"]
