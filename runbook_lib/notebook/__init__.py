"""What the notebook's cells call. The cells show the work in domain words; this module only displays it.

    rb = nb.start(**params)               # validate, lock, plan every step (refuse here, before any write)
    plan = rb.plan("runtime")             # one step's plan: the table path, the diff
    rb.write(plan)                        # apply: backup, atomic rename · check: nothing
    with rb.expect("options") as expect:  # the visible assertions, joined with the library's verdict
        expect.boolean(nvidia, "options.SystemdCgroup", True)

Every step shows one record with three representations: the machine-readable record (a custom mimetype, read
by the archive, `runbook summary` and grading), HTML for people, and text/plain for everything else.

May import: every layer up to engine.
"""

from __future__ import annotations

import html
from contextlib import contextmanager

from runbook_lib.engine.params import refuse_unknown, validate
from runbook_lib.engine.result import STEP_MIME, StepResult  # noqa: F401 - the record's mimetype, for readers
from runbook_lib.engine.run import Run
from runbook_lib.findings.catalog import say
from runbook_lib.findings.errors import ParameterError, RunbookError
from runbook_lib.findings.messages import bilingual
from runbook_lib.findings.problem import Problem
from runbook_lib.findings.text import lines as finding_lines
from runbook_lib.notebook.feedback import Feedback, OutOfOrder, Refused, StepFailed  # noqa: F401
from runbook_lib.notebook.plan_view import PlanView, colour_diff, diff_stat  # noqa: F401
from runbook_lib.notebook.runbook import Runbook
from runbook_lib.notebook.session import (SESSION, _display, _hook, _shell, injected_names, quiet_kernel_end,
                                          say_on_terminal)
from runbook_lib.steps.base import CHANGED, FAILED, UNCHANGED
from runbook_lib.steps.status import outcome
from runbook_lib.notebook.views import (STATUS_MIME, _status, head_lines, in_order, not_run, refusal_text,  # noqa: F401
                                        show, summary)


def start(**params) -> Runbook:
    """The validation cell: check every parameter, take the root's lock, and plan every step. An apply run
    whose plan refuses stops here, before its first write, with the refusal and its fix at the top. A name
    papermill was given that is no parameter (`-p mdoe check`) stops it first, before anything is written."""
    shell = _shell()
    if shell is not None:  # in a kernel: a later cell run before the one that defines its names says so
        from runbook_lib.notebook.kernel_names import install
        install(shell)
        quiet_kernel_end(shell)
    with parameters_refused_on_terminal():
        refuse_unknown(injected_names())  # papermill only warns of it, and the run would go on without it
    if not params.get("root"):
        # the embedded sandbox is the runbook's own folder: create it, so `make run` works on a fresh clone
        # (an explicit root that does not exist stays an error: it is probably a typo)
        from runbook_lib.engine.params import default_lab_root
        default_lab_root().mkdir(parents=True, exist_ok=True)
    if SESSION.run is not None:  # the validation cell run again in this kernel: that run ends, and releases its lock
        SESSION.run.finish()     # (else this start would wait for the lock this very kernel holds)
        SESSION.run.replaced, SESSION.run = True, None
    with parameters_refused_on_terminal():
        p = validate(**params)
    rb = Runbook(p)
    from runbook_lib.engine.limits import arm
    arm(rb.p.time_limit, rb.p.memory_limit)  # in a kernel: the run stops at its limits, with a finding
    rb.given = dict(params)
    rb.start()
    SESSION.run = rb
    shell = _shell()
    if shell is not None:  # in a kernel: from this cell on, each cell walks a path once (_cell_started)
        _hook(shell)
        rb.target.remember()
    given = _given(rb)
    try:
        with rb.target.remembering():  # every path of the plan walked once (fs/target.py)
            rb.preflight()
    except BaseException as exc:
        _display(given)  # what was asked, above why it stopped
        if isinstance(exc, RunbookError):  # the profile and the reason first, before papermill's traceback
            say_on_terminal(head_lines(rb) + exc.render().split("\n"))
        rb.finish()
        raise
    given = _given(rb)  # the plan decided layout=auto too
    head = _plans_bundle(rb, given)  # what was asked, then the plan: under the status box, in its output
    if rb.refused:
        for step in rb.steps:
            if rb.verdict(step).failed:
                show(rb.results[step.id])  # the refusing steps' records, for the archive and grading
        text = refusal_text(rb)
        first = rb.failed_steps()[0]
        _status(rb, "failed", say("notebook.plan_refused_step_nothing", step=first.step, message=first.message), failed=first,
                head=head)
        summary(rb, final=False)
        rb.finish()
        raise Refused("the plan refused; nothing was written", text)
    _status(rb, "started", say("notebook.every_step_planned_run"), head=head)
    if rb.mode.removes:  # the removal is one step: planned above, done and read back here
        removal = rb.step("remove")
        _display(PlanView(rb, removal, rb.plans["remove"]).bundle())
        from runbook_lib.notebook import remove_report
        result = rb.run(removal)
        show(result)
        _display({"text/plain": remove_report.text(remove_report.report(rb, result))})
    return rb


@contextmanager
def parameters_refused_on_terminal():
    """A parameter refused (validate, refuse_unknown) goes on as the cell's error, and its reason is said first on
    the terminal of a plain papermill run (session.say_on_terminal), above papermill's traceback of the cell."""
    try:
        yield
    except ParameterError as exc:
        say_on_terminal(finding_lines(Problem.from_error(exc), outcome(FAILED).mark + " "))
        raise


def _given(rb: Run) -> dict:
    """What was asked, and the world the run decided it is in, with why (engine/profile.py): the first lines of
    the run's output."""
    said = [(bilingual(say("label.profile")), rb.profile.reason)]
    if rb.layout_reason is not None:
        said.append((bilingual(say("label.layout")), rb.layout_reason))
    text = [f"root = {rb.target.root}  mode = {rb.p.mode}  runtime = {rb.p.runtime_name}"]
    text += [f"{label}: {m.ko}" + "\n" + " " * (len(label) + 2) + m.en for label, m in said]
    rows = "".join(f"<br><b>{html.escape(label)}</b> {html.escape(bilingual(m))}" for label, m in said)
    return {"text/plain": "\n".join(text),
            "text/html": f"<p><b>root</b> <code>{html.escape(str(rb.target.root))}</code> · <b>mode</b> {rb.p.mode} · "
                         f"<b>runtime</b> {html.escape(rb.p.runtime_name)}{rows}</p>"}


def _plans_bundle(rb: Run, given: dict) -> dict:
    """The parameters' line, then every step's plan in one line each (the plans themselves are in the steps'
    cells): shown under the status box, in its output (one output: each output costs every later save of
    the notebook, and this one is near the top)."""
    text = [bilingual(say(rb.mode.plans_label))]
    for s in rb.steps:
        p = rb.plans[s.ID]
        changes = p.changed and not p.others_repair  # another step's repair is that step's to say
        mark = outcome(FAILED if p.refusals else CHANGED if changes else UNCHANGED).mark  # steps/status.py's marks
        text.append(f"  {mark} {s.NUMBER:>2}. {bilingual(p.message)}")
    plans = "\n".join(text)
    # the HTML on one line (<br> in the <pre>): this output is near the top, in every one of papermill's saves,
    # where each line of a text output is one more JSON string to encode
    return {"text/plain": given["text/plain"] + "\n" + plans,
            "text/html": given["text/html"] + "<pre>" + "<br>".join(html.escape(t, quote=False) for t in text) + "</pre>"}


def finish(rb: Run) -> None:
    """Release the lock; in check mode, fail the run when any step failed, with every finding shown."""
    if isinstance(rb, Runbook):
        rb.ensure_current()
    rb.finish()
    missing = not_run(rb)
    if missing:
        p = Problem.of("notebook.not_run", steps=", ".join(map(str, missing)))
        _status(rb, "failed", p.what)
        raise StepFailed(f"steps not run: {', '.join(map(str, missing))}",
                         "\n".join(finding_lines(p)))
    failed = rb.failed_steps()
    if failed:
        numbers = ", ".join(str(r.step) for r in failed)
        _status(rb, "failed", say("notebook.run_reached_end_but", numbers=numbers), failed=failed[0])
        text = [f"{bilingual(say('label.failed_steps'))}: {numbers}", ""] + [r.text() for r in failed]
        raise StepFailed(f"failed steps: {numbers}", "\n\n".join(text))
    _status(rb, "finished", say("notebook.every_step_ran_passed"))


__all__ = ["start", "show", "summary", "finish", "Runbook", "StepFailed", "Refused", "Problem", "RunbookError"]
