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
import json
import uuid
from contextlib import contextmanager

from runbook_lib.findings.errors import ParameterError, RunbookError
from runbook_lib.steps.expect import Expect
from runbook_lib.findings.problem import Problem
from runbook_lib.findings.text import lines as finding_lines
from runbook_lib.findings.messages import Msg
from runbook_lib.findings.catalog import say
from runbook_lib.engine.params import validate
from runbook_lib.engine.result import STEP_MIME, SUMMARY_MIME, StepResult, record_text, summary_html, summary_text
from runbook_lib.engine.run import Plan, Run, judge

STATUS_MIME = "application/vnd.runbook.status+json"


def _shell():
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - ipykernel is a dependency
        return None
    return get_ipython()


def _display(bundle: dict, **kw) -> None:
    shell = _shell()
    if shell is None:  # outside a kernel (tests, scripts): the text form
        if not kw.get("update"):
            print(bundle["text/plain"])
        return
    from IPython.display import display

    _show_held()  # a plan displayed before this output, above it
    _flush_notes()  # what the cell read before this output, above it, as it happened
    display(bundle, raw=True, **kw)


# The plans a cell displayed and the runbook has not shown yet (PlanView._ipython_display_): shown with the
# write's lines, before any other output of the runbook, or when the cell ends (IPython's post_run_cell event).
_held: list = []


def _hold(view, shell) -> None:
    _hook(shell)
    _held.append(view)


def _show_held() -> None:
    while _held:
        _held[0].publish()


def _hook(shell) -> None:
    if shell not in _hooked:
        shell.events.register("pre_run_cell", _cell_started)
        shell.events.register("post_run_cell", _cell_ended)
        _hooked[:] = [shell]


def _cell_started(*_) -> None:
    if _run is not None:
        _run.target.remember()  # the cell's paths walked once each (fs/target.py), forgotten when it ends


def _cell_ended(*_) -> None:
    if _run is not None:
        _run.target.forget()
    _show_held()
    _flush_notes()


# What a check cell's reads say ("tomllib: <files> (version 2)", "version 2 → <table>"): held, and shown in the
# step's own output above its checks, one display message and one output instead of three. Whatever a cell read
# and did not show that way is shown when the cell ends (IPython's post_run_cell event, still in that cell).
_notes: list[str] = []
_hooked: list[object] = []  # the shell whose post_run_cell shows what is left


def _note(line: str) -> None:
    shell = _shell()
    if shell is None:
        print(line)
        return
    _hook(shell)
    _notes.append(line)


def _take_notes() -> list[str]:
    taken = list(_notes)
    _notes.clear()
    return taken


def _flush_notes(*_) -> None:
    if _notes:
        from IPython.display import display

        display({"text/plain": "\n".join(_take_notes())}, raw=True)


class Feedback(Exception):
    """Stops a cell (so papermill exits non-zero) and shows the findings, not a Python traceback: IPython
    renders an exception that has _render_traceback_ with those lines instead of the traceback."""

    def __init__(self, summary: str, text: str):
        super().__init__(summary)
        self.text = text

    def _render_traceback_(self) -> list[str]:
        return self.text.split("\n")


class StepFailed(Feedback):
    """A step's verdict failed (apply mode: at its check cell; check mode: at the last cell)."""


class Refused(Feedback):
    """The plan refused: an apply run stops before its first write."""


def colour_diff(diff: str) -> str:
    """The diff as one line of HTML: a run of lines of one colour in one span, context lines bare, and only what
    HTML needs escaped (quotes are text here): about half the bytes of a span with a style on every line."""
    colours = {"+": "#1a7f37", "-": "#cf222e", "@": "#8250df"}
    runs: list[tuple[str | None, list[str]]] = []
    for line in diff.splitlines():
        c = colours.get(line[:1]) if not line.startswith(("+++", "---")) else "#57606a"
        if not runs or runs[-1][0] != c:
            runs.append((c, []))
        runs[-1][1].append(html.escape(line, quote=False))
    # <br>, not a newline: papermill stores a text output as one JSON string per line and re-encodes the whole
    # notebook at every cell's start and end, so one line of HTML costs every later save the least
    body = "<br>".join(f"<span style='color:{c}'>{'<br>'.join(lines)}</span>" if c else "<br>".join(lines)
                       for c, lines in runs)
    return "<pre style='background:#f6f8fa;padding:6px'>" + body + "</pre>"


def diff_stat(plan: Plan) -> list[tuple[str, int, int]]:
    """(file, lines added, lines removed) for every file the plan changes or retires, in the diff's order."""
    out = []
    for lab_path, text in plan.diffs():
        body = text.splitlines()[2:]  # after the ---/+++ header: hunk headers and lines
        out.append((lab_path, sum(1 for line in body if line[:1] == "+"), sum(1 for line in body if line[:1] == "-")))
    return out


class PlanView:
    """A step's plan as a notebook shows it: the message, what it is about, the diff (coloured), the notes."""

    def __init__(self, rb: "Runbook", step, plan: Plan):
        self.rb, self.step, self.plan = rb, step, plan
        self.display_id: str | None = None  # set once shown in a kernel: the write adds its lines to that output
        self._shown: dict = {}
        self._cell: int | None = None

    def bundle(self) -> dict:
        return {"text/plain": repr(self), "text/html": self._repr_html_()}

    def _ipython_display_(self) -> None:
        """`display(plan)`: its text and HTML as one output, with what `rb.write(plan)` then wrote added to it
        instead of a second output: every output costs each later save of the notebook (~3 ms a run each,
        nbformat's wrapper and validation of it, whatever its size). In a kernel the plan is held until the
        write adds its lines (one display message, not a display and its update), or until anything else of
        the runbook is shown, or the cell ends (_held)."""
        self._shown = self.bundle()
        if self.step is not _NotInThisMode:
            self.rb.plans_shown.add(self.step.id)  # its check cell need not say the plan's words again
        shell = _shell()
        if shell is None:  # a script: nothing to add lines to later
            _display(self._shown)
            return
        self._cell = shell.execution_count  # the write adds to this output only when run in this same cell
        _hold(self, shell)

    def publish(self, lines: list[str] | None = None) -> None:
        """Show the held plan now, with the write's lines when there are some; with a display id, so a write
        later in the same cell still adds to it."""
        if self in _held:
            _held.remove(self)
        self.display_id = f"runbook-plan-{uuid.uuid4().hex}"
        _display(self._with(lines) if lines else self._shown, display_id=self.display_id)

    def _with(self, lines: list[str]) -> dict:
        text = "\n".join(lines)
        return {"text/plain": self._shown["text/plain"] + "\n" + text,
                "text/html": self._shown["text/html"] + "<pre>" + "<br>".join(html.escape(t, quote=False) for t in lines) + "</pre>"}

    def add_lines(self, lines: list[str]) -> bool:
        """What the write did, under the plan in its own output (False: the plan was not shown in this cell: a
        script, or a write run in a later cell of JupyterLab, whose own output says it)."""
        shell = _shell()
        if shell is None or self._cell is None or shell.execution_count != self._cell:
            return False
        if self in _held:  # not shown yet: shown once, with the lines
            self.publish(lines)
            return True
        if self.display_id is None:
            return False
        _display(self._with(lines), display_id=self.display_id, update=True)
        return True

    @property
    def diff(self) -> str:
        return self.plan.diff

    @property
    def subject(self) -> str | None:
        return self.plan.subject

    def _lines(self) -> list[str]:
        if self.step is _NotInThisMode:  # no plan of its own to show: only why
            return [_NotInThisMode.TITLE.ko, _NotInThisMode.TITLE.en]
        head = "계획 / plan" if not self.rb.p.check_only else "apply 모드라면 / apply mode would"
        lines = [f"{head} — {self.step.NUMBER}. {self.step.TITLE.ko} / {self.step.TITLE.en}",
                 f"  {self.plan.message.ko}", f"  {self.plan.message.en}"]
        if self.rb.p.check_only:  # said here, in the plan's own output, not as one more output of the write
            lines.append("  " + " / ".join(say("notebook.check_mode_writes_nothing").as_dict().values()))
        if self.plan.subject:
            lines.append(f"  대상 / target: {self.plan.subject}")
        for w in self.plan.writes:
            lines.append(f"  {'바꿀 파일 / to change' if w.changed else '그대로 / unchanged'}: {w.lab_path}")
        for n in self.plan.notes:
            lines += [f"  - {n.ko}", f"    {n.en}"]
        for p in self.plan.refusals:
            lines += finding_lines(p, "✗ 거부 / refused: ", indent="  ")
        return lines

    def __repr__(self) -> str:
        """The plan in plain text: its lines and, per file, how many lines the diff adds and removes. The diff's
        lines themselves are shown once, in the HTML view (what JupyterLab, the archive's run.html and nbconvert
        show); a second full copy here was paid for again at every later save of the notebook."""
        stat = [f"  diff (HTML): {path} +{added} -{removed}" for path, added, removed in diff_stat(self.plan)]
        return "\n".join(self._lines() + stat)

    def _repr_html_(self) -> str:
        body = "<br>".join(html.escape(line, quote=False) for line in self._lines())
        diff = self.diff
        return f"<div>{body}</div>" + (colour_diff(diff) if diff else "")


class OutOfOrder(Feedback):
    """A cell run before the write cell of its own or an earlier step (JupyterLab): nothing is written or judged,
    and the run is not stopped."""


class _NotInThisMode:
    """The stand-in step of a section that a mode does not run (the apply steps in mode=remove)."""
    NUMBER = ID = number = id = "-"
    TITLE = title = say("notebook.step_not_in_remove_mode")


class Runbook(Run):
    """The run context, with what the cells use to show their work."""

    replaced = False  # set when the validation cell starts another run in this kernel (see start())

    @property
    def plans_shown(self) -> set:
        """The steps whose plan a cell of this run displayed."""
        return self.__dict__.setdefault("_plans_shown", set())

    given: dict = {}  # the parameters as the validation cell passed them

    def _locked(self) -> None:
        """Apply mode: a run that a failed check or an early summary cell stopped released its lock; a student who
        goes on (after a fix, in JupyterLab) writes under the lock again."""
        if not self.p.check_only:
            self.relock()

    def ensure_current(self) -> None:
        """A cell of a run that a later nb.start ended (its lock released) must not write or judge: the student
        re-ran the validation cell, it stopped (a bad value, a refusal), and `rb` still names the old run."""
        if self.replaced:
            raise RunbookError.of("notebook.run_replaced")
        changes = _edited(self.given)
        if changes:  # the parameters cell run again without the validation cell: the run has the old values
            raise RunbookError.of("notebook.params_changed", changes=changes)

    def _known(self, step_id: str) -> None:
        """A step name that no mode has (a typo in a cell) is said so, not taken for a step of another mode."""
        from runbook_lib.steps import REMOVE_STEPS, STEPS
        names = [s.ID for s in STEPS] + [s.ID for s in REMOVE_STEPS if s not in STEPS]
        if step_id not in names:
            raise RunbookError.of("notebook.unknown_step", step=json.dumps(step_id, ensure_ascii=False)
                                  if isinstance(step_id, str) else str(step_id), steps=names)

    def _unwritten(self, step, *, own: bool) -> object | None:
        """Apply mode: every plan was made on the state the earlier steps' writes leave, so a step's cells wait for
        those writes. The first step before this one (or this one too, for its check cell) with something to write
        whose write cell has not run yet."""
        if self.p.check_only:
            return None
        for s in self.steps:
            if s.ID == step.ID and not own:
                return None
            if self.plans[s.id].changed and s.id not in self.results:
                return s
            if s.ID == step.ID:
                return None
        return None

    def _out_of_order(self, pending, checks: Expect | None = None) -> OutOfOrder:
        _flush_notes()  # what the cell read, above the reason it stops
        p = Problem.of("notebook.out_of_order", step=pending.NUMBER, title=pending.TITLE)
        lines = finding_lines(p, "✗ ")
        if checks and checks.checks:  # what the disk holds now, as the cell's assertions read it
            lines = ["확인 / checks (지금 디스크에 있는 것 / what the disk holds now)", checks.text(), ""] + lines
        return OutOfOrder(f"run step {pending.NUMBER} first", "\n".join(lines))

    # --- the plan and the write --------------------------------------------------------------------

    def plan(self, step_id: str) -> PlanView:
        """The plan made for this step before anything was written (the preflight's)."""
        self.ensure_current()
        self._known(step_id)
        if step_id not in self.plans:  # mode=remove has its own steps: the removal was shown at the top
            return PlanView(self, _NotInThisMode, Plan(_NotInThisMode.TITLE))
        step = self.step(step_id)
        _status(self, "running", say("notebook.running_step_if_still", step=step.NUMBER))
        return PlanView(self, step, self.plans[step_id])

    def write(self, plan: PlanView) -> None:
        """Apply mode: write what the plan says (backup first, then an atomic rename). Check mode: nothing."""
        try:
            self._write(plan)
        finally:  # a plan still held (check mode, or the write refused): shown now, above any error of the cell
            _show_held()

    def _write(self, plan: PlanView) -> None:
        self.ensure_current()
        if plan.step is _NotInThisMode:
            return
        pending = self._unwritten(plan.step, own=False)
        if pending is not None:
            raise self._out_of_order(pending)
        earlier = self.results.get(plan.step.id)
        before = list(earlier.files) if earlier else []  # the cell run again: only what this time wrote is shown
        made = [d for d in plan.plan.dirs if not self.is_dir(d)]
        self._locked()
        result = self.commit(plan.step)
        if self.p.check_only:  # nothing written: the plan's view above says so (one output a cell, not two)
            return
        done = [f["path"] for f in result.files if f["action"] == "written" and f not in before]
        backup = [f["path"] for f in result.files if f["action"] == "backup" and f not in before]
        made = [d for d in made if self.is_dir(d)]
        lines = ([f"만든 폴더 / created: {', '.join(made)}"] if made else []) + \
                [f"썼습니다 / written: {p}" for p in done] + [f"백업 / backup: {p}" for p in backup]
        for p in (p for p in result.problems if p.is_a("write.failed")):  # the check cell below stops the run
            lines += finding_lines(p, "✗ 쓰지 못했습니다 / not written: ")
        lines = lines or [" / ".join(say("notebook.nothing_to_change").as_dict().values())]
        if not plan.add_lines(lines):  # the plan shown in this cell: in its output; else (not shown, a script) here
            _display({"text/plain": "\n".join(lines)})

    # --- reading back, as a student would -----------------------------------------------------------

    def note(self, line: str) -> None:
        """What a cell's read says, shown above the step's checks (held until the step's output, _note)."""
        if not self.quiet:
            _note(line)

    # --- the verdict --------------------------------------------------------------------------------

    @contextmanager
    def expect(self, step_id: str, path: str | None = None):
        self.ensure_current()
        self._known(step_id)
        if step_id not in self.plans:  # mode=remove: nothing of this step is judged
            try:
                yield Expect(self, step_id, path)
            except RunbookError:
                pass  # the cell's own reads of a file that cannot be read: not judged in this mode either
            _display({"text/plain": f"{_NotInThisMode.TITLE.ko}\n{_NotInThisMode.TITLE.en}"})
            return
        step = self.step(step_id)
        subject = self.plans[step_id].subject
        if not (subject and subject.startswith("/") and " " not in subject):
            subject = self.p.config_path  # a table header or a command is no file: the findings name the config
        checks = Expect(self, step_id, path or subject)
        pending = self._unwritten(step, own=True)
        if pending is not None:  # the check cell run before a write cell: the assertions, then what to run first
            try:
                yield checks
            except RunbookError:
                pass
            raise self._out_of_order(pending, checks)
        raised: list[Problem] = []
        try:
            yield checks
        except RunbookError as exc:  # the cell read a file that cannot be read (a FIFO, a file for a folder):
            raised.append(Problem.from_error(exc))  # a finding of this step, so check mode goes on to the next
        result = self.verdict(step)
        result.problems += [p for p in raised if not any(p.same(q) or q.code == "depends.earlier" for q in result.problems)]
        result.problems += checks.uncovered(result.problems)
        if any(p.is_error for p in result.problems):
            judge(result)  # failed, or blocked when every error only follows from an earlier step's failure
        plan = self.plans[step_id]
        show(result, checks, shown=(plan.message, *plan.notes) if step_id in self.plans_shown else ())
        if result.failed and not self.p.check_only:
            summary(self, final=False)
            self._stop(result)

    def _stop(self, result: StepResult) -> None:
        withdrawn = self.withdraw_report()
        if withdrawn:
            result.notes.append(say("notebook.run_failed_earlier_run", withdrawn=withdrawn))
        _status(self, "failed", say("notebook.stopped_step_failed", step=result.step, message=result.message), failed=result)
        self.finish()  # the run stops here: release the root's lock even if the kernel lives on (JupyterLab)
        raise StepFailed(f"step {result.step} failed", result.text())

    def check(self, step_id: str) -> None:
        """A check cell without assertions of its own: the library's verdict, shown."""
        with self.expect(step_id):
            pass

    def try_pod(self, plan: PlanView) -> dict:
        """The pod step's action cell: start the pod through the handler (`smoke`; nothing is written under the
        root), show what it did, and return its facts for the check cell (only `left`, empty, when the step is
        skipped: no pod was made)."""
        from runbook_lib.containerd.smoke.show import lines
        from runbook_lib.steps import pod
        _show_held()  # the plan, before a pod that may take seconds
        self.ensure_current()
        if plan.step is _NotInThisMode:
            return {"left": []}
        pending = self._unwritten(plan.step, own=False)
        if pending is not None:  # run early, it would start a pod on a config not written yet
            raise self._out_of_order(pending)
        self._locked()
        self.commit(plan.step)
        self.readings.pop(pod.ID, None)  # the cell run again (after a fix by hand): a new pod, on the files as they are now
        reading = pod.attempt(self)
        if reading is None or not pod.facts(self):
            reason = pod.skipped(self) or reading
            if reason is not None and reason != plan.plan.message:  # the plan's output above already says it
                _display({"text/plain": f"{reason.ko}\n{reason.en}"})
            return {"left": []}  # no pod was made: nothing can be left of it
        _display({"text/plain": "\n".join(lines(pod.facts(self)))})
        return pod.facts(self)

    def restart(self) -> None:
        """The restart section: commit (apply mode, real node, asked), then its verdict."""
        self.ensure_current()
        step = self.step("restart")
        pending = self._unwritten(step, own=False)
        if pending is not None:  # run early, it would decide on a config not written yet ("no restart needed")
            raise self._out_of_order(pending)
        self._locked()
        self.commit(step)
        show(self.verdict(step))


def start(**params) -> Runbook:
    """The validation cell: check every parameter, take the root's lock, and plan every step. An apply run
    whose plan refuses stops here, before its first write, with the refusal and its fix at the top."""
    if not params.get("root"):
        # the embedded sandbox is the runbook's own folder: create it, so `make run` works on a fresh clone
        # (an explicit root that does not exist stays an error: it is probably a typo)
        from runbook_lib.engine.params import default_lab_root
        default_lab_root().mkdir(parents=True, exist_ok=True)
    global _run
    if _run is not None:  # the validation cell run again in this kernel: that run ends, and releases its lock
        _run.finish()     # (else this start would wait for the lock this very kernel holds)
        _run.replaced, _run = True, None
    rb = Runbook(validate(**params))
    from runbook_lib.engine.limits import arm
    arm(rb.p.time_limit, rb.p.memory_limit)  # in a kernel: the run stops at its limits, with a finding
    rb.given = dict(params)
    rb.start()
    _run = rb
    shell = _shell()
    if shell is not None:  # in a kernel: from this cell on, each cell walks a path once (_cell_started)
        _hook(shell)
        rb.target.remember()
    given = {"text/plain": f"root = {rb.target.root}  mode = {rb.p.mode}  runtime = {rb.p.runtime_name}",
             "text/html": f"<p><b>root</b> <code>{html.escape(str(rb.target.root))}</code> · <b>mode</b> {rb.p.mode} · "
                          f"<b>runtime</b> {html.escape(rb.p.runtime_name)}</p>"}
    try:
        with rb.target.remembering():  # every path of the plan walked once (fs/target.py)
            rb.preflight()
    except BaseException:
        _display(given)  # what was asked, above why it stopped
        rb.finish()
        raise
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
    if rb.p.removing:  # the removal is one step: planned above, done and read back here
        removal = rb.step("remove")
        _display(PlanView(rb, removal, rb.plans["remove"]).bundle())
        from runbook_lib.notebook import remove_report
        result = rb.run(removal)
        show(result)
        _display({"text/plain": remove_report.text(remove_report.report(rb, result))})
    return rb


def _edited(given: dict) -> list[str]:
    """The parameters whose value in the kernel (the parameters cell, run again) is not the one the run started
    with, as `name old → new`. Outside a kernel there is no parameters cell: nothing."""
    from runbook_lib.k8s.names import quoted
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - ipykernel is a dependency
        return []
    shell = get_ipython()
    if shell is None:
        return []
    ns, out = shell.user_ns, []
    for name, value in given.items():
        now = ns.get(name, value)
        if now != value or type(now) is not type(value):
            out.append(f"{name} {quoted(value)} → {quoted(now)}")
    return out


def refusal_text(rb: Run) -> str:
    refused = say("notebook.run_refused_nothing_written")
    lines = [refused.ko, refused.en, ""]
    shown: list[Problem] = []
    for step, p in rb.refusals():
        if any(p.same(q) for q in shown):
            continue  # one unreadable file refuses several steps: say it once
        shown.append(p)
        lines += [f"✗ {step.NUMBER}. {step.TITLE.ko} / {step.TITLE.en}"] + finding_lines(p, indent="  ")
    return "\n".join(lines)


def _plans_bundle(rb: Run, given: dict) -> dict:
    """The parameters' line, then every step's plan in one line each (the plans themselves are in the steps'
    cells): shown under the status box, in its output (one output: each output costs every later save of
    the notebook, and this one is near the top)."""
    text = ["계획 / the plan" + (" (check 모드: 쓰지 않음 / check mode: nothing is written)" if rb.p.check_only else "")]
    for s in rb.steps:
        p = rb.plans[s.ID]
        mark = "✗" if p.refusals else ("~" if p.changed else "=")
        text.append(f"  {mark} {s.NUMBER:>2}. {p.message.ko} / {p.message.en}")
    plans = "\n".join(text)
    # the HTML on one line (<br> in the <pre>): this output is near the top, in every one of papermill's saves,
    # where each line of a text output is one more JSON string to encode
    return {"text/plain": given["text/plain"] + "\n" + plans,
            "text/html": given["text/html"] + "<pre>" + "<br>".join(html.escape(t, quote=False) for t in text) + "</pre>"}


def show(result: StepResult, checks: Expect | None = None, shown: tuple[Msg, ...] = ()) -> None:
    """The step's record and its text (no HTML copy of the same text: papermill saves the whole notebook
    around every cell, so every byte of output is paid for again and again). `shown`: what the step's plan
    output above already says, not said again in the text (the record keeps all of it)."""
    text = result.text(shown)
    if checks and checks.checks:
        text = "확인 / checks\n" + checks.text() + "\n" + text
    _display({STEP_MIME: record_text(result.as_record()), "text/plain": "\n".join(_take_notes() + [text])})


def summary(rb: Run, *, final: bool = True) -> None:
    """The last cell: the only reliable proof in an archived notebook that the run reached the end."""
    if isinstance(rb, Runbook):
        rb.ensure_current()
    results = in_order(rb)
    missing = not_run(rb) if final else []
    record = {"ok": rb.ok() and not rb.refused and not missing, "final": final, "mode": rb.p.mode,
              "root": str(rb.target.root), "refused": rb.refused, "runbook_version": __import__("runbook_lib").__version__,
              "params": rb.p.as_dict(), "steps": [r.as_record() for r in results]}
    if missing:
        record["not_run"] = missing
    text = summary_text(results)
    head = "요약 / summary" if final else "멈추기 전까지의 요약 / summary up to the stop"
    late = ""
    if missing:  # the summary cell run early (JupyterLab): this table is not the end of the run
        p = Problem.of("notebook.not_run", steps=", ".join(map(str, missing)))
        late = "\n".join(finding_lines(p, "✗ "))
        text += "\n" + late
    _display({SUMMARY_MIME: record_text(record), "text/plain": f"{head}\n{text}",
              "text/html": f"<h4>{head}</h4>" + summary_html(results, ok=record["ok"], mode=rb.p.mode)
              + (f"<pre>{html.escape(late)}</pre>" if late else "")})


def in_order(rb: Run) -> list[StepResult]:
    """The results so far, in the order of the steps."""
    return [rb.results[s.id] for s in rb.steps if s.id in rb.results]


def not_run(rb: Run) -> list:
    """The steps whose cells have not run yet (a step of a refused run has its refusal as its result)."""
    return [s.number for s in rb.steps if s.id not in rb.results]


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
        text = [f"실패한 단계 / failed steps: {numbers}", ""] + [r.text() for r in failed]
        raise StepFailed(f"failed steps: {numbers}", "\n\n".join(text))
    _status(rb, "finished", say("notebook.every_step_ran_passed"))


_run: Runbook | None = None  # this kernel's run, from the last nb.start (JupyterLab keeps the kernel between runs)
_status_id: str | None = None  # the display id of this run's status box (one run at a time per kernel)
_status_head: dict = {}  # what the box's output shows above it: the parameters and the plan overview


def _status(rb: Run, state: str, message: Msg, *, failed: StepResult | None = None, head: dict | None = None) -> None:
    """The run's status box, shown once near the top, above the plan overview `head` (in the same output), and
    updated in place as the run goes on. A failed run is read there first: which step failed, its message, how
    to fix it, and what was done before it."""
    global _status_id, _status_head
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
    colour = {"failed": "#cf222e", "finished": "#1a7f37"}.get(state, "#9a6700")
    body = (f"<div style='border:2px solid {colour};padding:6px 10px'><b style='color:{colour}'>{html.escape(ko)}<br>"
            f"{html.escape(en)}</b>" + (f"<pre>{html.escape(failed.text())}</pre>" if failed else ""))
    if done:
        body += summary_html(done, ok=rb.ok(), mode=rb.p.mode)
    new = _status_id is None or head is not None
    if new:
        _status_head = head or {}
    above = _status_head
    bundle = {STATUS_MIME: record_text(record),  # the box first: a failed run is read at the top
              "text/plain": "\n".join(text + ([above["text/plain"]] if above else [])),
              "text/html": body + "</div>" + above.get("text/html", "")}
    if new:
        _status_id = f"runbook-status-{uuid.uuid4().hex}"
        _display(bundle, display_id=_status_id)
    else:
        _display(bundle, display_id=_status_id, update=True)


__all__ = ["start", "show", "summary", "finish", "Runbook", "StepFailed", "Refused", "Problem", "RunbookError"]
