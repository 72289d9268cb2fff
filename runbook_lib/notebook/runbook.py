"""The notebook's run context: the engine's run, with what the cells use to show their work (the plan, the write,
the check cell's verdict, the pod and the restart)."""

from __future__ import annotations

import json
from contextlib import contextmanager

from runbook_lib.engine.result import StepResult
from runbook_lib.engine.run import Run, judge
from runbook_lib.fs.plan import Plan
from runbook_lib.findings.catalog import say
from runbook_lib.findings.errors import RunbookError
from runbook_lib.findings.messages import bilingual
from runbook_lib.findings.problem import Problem
from runbook_lib.findings.text import lines as finding_lines
from runbook_lib.notebook.feedback import OutOfOrder, StepFailed
from runbook_lib.notebook.plan_view import PlanView, _NotInThisMode
from runbook_lib.notebook.session import _display, _flush_notes, _note, _show_held
from runbook_lib.notebook.views import _status, show, summary
from runbook_lib.steps.expect import Expect


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
        if self.mode.writes:
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
        if not self.mode.writes:
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
            lines = [bilingual(say("label.checks_on_disk")), checks.text(), ""] + lines
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
        if not self.mode.writes:  # nothing written: the plan's view above says so (one output a cell, not two)
            return
        done = [f["path"] for f in result.files if f["action"] == "written" and f not in before]
        backup = [f["path"] for f in result.files if f["action"] == "backup" and f not in before]
        made = [d for d in made if self.is_dir(d)]
        created, written, backed = (bilingual(say(code)) for code in ("label.created", "label.written", "label.backup"))
        lines = ([f"{created}: {', '.join(made)}"] if made else []) + \
                [f"{written}: {p}" for p in done] + [f"{backed}: {p}" for p in backup]
        for p in (p for p in result.problems if p.is_a("write.failed")):  # the check cell below stops the run
            lines += finding_lines(p, f"✗ {bilingual(say('label.not_written'))}: ")
        lines = lines or [bilingual(say("notebook.nothing_to_change"))]
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
        earlier = self._failed_before(step)
        if earlier is not None and checks.failed() and not any(p.is_error for p in result.problems):
            # the verdict judged the step on the corrected input and found it right: the cell's assertions read
            # the broken input, so their failures are the earlier step's mistake, counted there (issue 41)
            note = say("notebook.checks_read_earlier_mistake", step=earlier)
            if note not in result.notes:  # a check cell run again says it once
                result.notes.append(note)
        else:
            result.problems += checks.uncovered(result.problems)
        if any(p.is_error for p in result.problems):
            judge(result)  # failed, or blocked when every error only follows from an earlier step's failure
        plan = self.plans[step_id]
        show(result, checks, shown=(plan.message, *plan.notes) if step_id in self.plans_shown else ())
        if result.failed and self.mode.writes:
            summary(self, final=False)
            self._stop(result)

    def _failed_before(self, step):
        """The number of the first step before this one that failed, or None."""
        for earlier in self.steps:
            if earlier.id == step.id:
                return None
            done = self.results.get(earlier.id)
            if done is not None and done.failed:
                return earlier.number
        return None

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
        _display({"text/plain": "\n".join(pod.lines(pod.facts(self)))})
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
