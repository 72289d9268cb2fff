"""A step's plan as a notebook shows it: its message, what it is about, the diff (coloured), the notes; the write
adds its lines to the same output."""

from __future__ import annotations

import html
import uuid

from runbook_lib.fs.plan import Plan
from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import bilingual
from runbook_lib.findings.text import lines as finding_lines
from runbook_lib.notebook.session import SESSION, _display, _hold, _shell


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

    def __init__(self, rb, step, plan: Plan):
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
        the runbook is shown, or the cell ends (SESSION.held)."""
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
        if self in SESSION.held:
            SESSION.held.remove(self)
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
        if self in SESSION.held:  # not shown yet: shown once, with the lines
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
        head = bilingual(say(self.rb.mode.plan_label))
        lines = [f"{head} — {self.step.NUMBER}. {bilingual(self.step.TITLE)}",
                 f"  {self.plan.message.ko}", f"  {self.plan.message.en}"]
        if not self.rb.mode.writes:  # said here, in the plan's own output, not as one more output of the write
            lines.append("  " + bilingual(say("notebook.check_mode_writes_nothing")))
        if self.plan.subject:
            lines.append(f"  {bilingual(say('label.target'))}: {self.plan.subject}")
        for w in self.plan.writes:
            lines.append(f"  {bilingual(say('label.to_change' if w.changed else 'label.unchanged'))}: {w.lab_path}")
        for n in self.plan.notes:
            lines += [f"  - {n.ko}", f"    {n.en}"]
        for p in self.plan.refusals:
            lines += finding_lines(p, f"✗ {bilingual(say('label.refused'))}: ", indent="  ")
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



class _NotInThisMode:
    """The stand-in step of a section that a mode does not run (the apply steps in mode=remove)."""
    NUMBER = ID = number = id = "-"
    TITLE = title = say("notebook.step_not_in_remove_mode")
