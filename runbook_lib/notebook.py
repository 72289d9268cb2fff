"""What the notebook's cells call: start the run, run a step and show it, and the final summary.

Every step shows one output with three representations: the machine-readable record (a custom mimetype,
read by the archive and `runbook summary`), HTML for people, and text/plain for everything else.
"""

from __future__ import annotations

import html
import uuid

from .errors import RunbookError
from .messages import Msg
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


STATUS_MIME = "application/vnd.runbook.status+json"
_status_id: str | None = None  # the display id of this run's status box (one run at a time per kernel)


def _status(rb: Runbook, state: str, ko: str, en: str, *, failed: StepResult | None = None) -> None:
    """The run's status box, shown once in the validation cell near the top and updated in place (IPython's
    update_display) as the run goes on. A failed apply run is read there first: which step failed, its message,
    how to fix it, and what was done before it. A box still saying "running step N" means the run died in step N.
    Outside a kernel (tests, scripts) there is nothing to update and nothing is shown."""
    global _status_id
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # pragma: no cover - ipykernel is a dependency
        return
    if get_ipython() is None:
        return
    done = [rb.results[k] for k in sorted(rb.results, key=str)]
    steps = [{"step": r.step, "status": r.status, "title": r.title.as_dict()} for r in done]
    record = {"state": state, "mode": rb.p.mode, "message": {"ko": ko, "en": en}, "steps": steps,
              "failed": failed.as_record() if failed else None}
    text = [f"[{state.upper()}] {ko}", f"         {en}"]
    if failed:
        text += ["", failed.text()]
    if steps:
        text += [""] + [f"  {r.step:>3}. {r.status:<9} {r.title.ko} / {r.title.en}" for r in done]
    colour = {"failed": "#cf222e", "finished": "#1a7f37"}.get(state, "#9a6700")
    body = (f"<div style='border:2px solid {colour};padding:6px 10px'><b style='color:{colour}'>{html.escape(ko)}<br>"
            f"{html.escape(en)}</b>")
    if failed:
        body += f"<pre>{html.escape(failed.text())}</pre>"
    if steps:
        body += summary_html(done, ok=rb.ok(), mode=rb.p.mode)
    bundle = {STATUS_MIME: record, "text/plain": "\n".join(text), "text/html": body + "</div>"}
    if _status_id is None or state == "started":
        _status_id = f"runbook-status-{uuid.uuid4().hex}"
        display(bundle, raw=True, display_id=_status_id)
    else:
        display(bundle, raw=True, display_id=_status_id, update=True)


def start(**params) -> Runbook:
    """The validation cell: check every parameter, then take the root's lock."""
    if not params.get("root"):
        # the embedded sandbox is the runbook's own folder: create it, so `make run` works on a fresh clone
        # (an explicit root that does not exist stays an error: it is probably a typo)
        from .params import default_lab_root
        default_lab_root().mkdir(parents=True, exist_ok=True)
    rb = Runbook(validate(**params))
    rb.start()
    _display({"text/plain": f"root = {rb.target.root}  mode = {rb.p.mode}  runtime = {rb.p.runtime_name}",
              "text/html": f"<p><b>root</b> <code>{html.escape(str(rb.target.root))}</code> · <b>mode</b> {rb.p.mode} · "
                           f"<b>runtime</b> {html.escape(rb.p.runtime_name)}</p>"})
    _status(rb, "started", "실행을 시작했습니다. 아직 끝나지 않았습니다.", "the run has started and has not finished yet.")
    return rb


def step(rb: Runbook, n: int) -> None:
    """The step's action: apply mode writes (and shows the diff), check mode only plans. Returns nothing, so
    the cell shows only what it displayed (the result stays in rb.results)."""
    _status(rb, "running", f"{n}단계를 실행하는 중입니다. 이 표시가 그대로 남아 있으면 실행이 {n}단계에서 멈춘 것입니다.",
            f"running step {n}. If this is still shown, the run stopped in step {n}.")
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
    failed = result.status == FAILED and not rb.p.check_only
    withdrawn = rb.withdraw_report() if failed else None
    if withdrawn:
        result.notes.append(Msg(f"이번 실행이 실패해서, 이전 실행의 report.txt 를 {withdrawn} 로 옮겼습니다 "
                                "(성공하지 않은 실행을 성공이라고 말하는 보고서가 남지 않도록).",
                                f"this run failed, so the earlier run's report.txt was moved to {withdrawn} "
                                "(no report may claim a success that did not happen)."))
    show(result)
    if failed:
        summary(rb, final=False)
        _status(rb, "failed", f"{n}단계에서 실패해 멈췄습니다: {result.message.ko}",
                f"stopped: step {n} failed: {result.message.en}", failed=result)
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
        _status(rb, "failed", f"끝까지 실행했지만 실패한 단계가 있습니다: {', '.join(failed)}",
                f"the run reached the end, but some steps failed: {', '.join(failed)}",
                failed=next(r for r in rb.results.values() if r.failed))
        raise StepFailed(f"실패한 단계 / failed steps: {', '.join(failed)}")
    _status(rb, "finished", "모든 단계를 마쳤고 모두 통과했습니다 (요약은 맨 아래).",
            "every step ran and passed (the summary is at the bottom).")


__all__ = ["start", "step", "check", "show", "summary", "finish", "RunbookError"]
