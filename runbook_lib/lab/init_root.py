"""`runbook lab-init ROOT`: a sandbox root holding the course's fixture, as an instructor hands it out; with
`--finished` the lab correctly done (an answer key), with `--mistake KIND` that lab with known mistakes in it
(runbook_lib/lab/mistakes.py).

The fixture is the abbreviated containerd default config the lab starts from; it is written with the same
safe-write path as the runbook itself (atomic, confined to the root, backed up when replaced).
"""

from __future__ import annotations
from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import bilingual

import os
import sys
from importlib.resources import files

FIXTURE = "/opt/fixtures/gpu-airgap/containerd/config.toml.base"


def fixture_bytes() -> bytes:
    return (files("runbook_lib") / "data" / "config.toml.base").read_bytes()


def lab_init(root: str, *, force: bool = False) -> str:
    """Create ROOT (if missing) and its fixture; returns a bilingual report. Refuses '/' and a differing fixture."""
    from runbook_lib.fs.safe_write import commit, ensure_dir, plan_write
    from runbook_lib.fs.target import Target

    if os.path.realpath(root) == "/":
        raise ValueError(str(say("lab.init_root.lab_init_prepares_sandbox")))
    if os.path.lexists(root) and not os.path.isdir(root):
        raise ValueError(str(say("lab.init_root.root_file_not_folder", root=root)))
    try:
        os.makedirs(root, exist_ok=True)
    except OSError as exc:
        raise ValueError(str(say("lab.init_root.could_not_create_lab", strerror=exc.strerror, root=root))) from None
    target = Target(os.path.abspath(root))
    ensure_dir(target, os.path.dirname(FIXTURE))
    plan = plan_write(target, FIXTURE, fixture_bytes(), mode=0o644)
    if plan.old is not None and plan.changed and not force:
        raise ValueError(str(say("lab.init_root.different_fixture_already_exists", host_path=plan.host_path)))
    done = commit(plan)
    state = bilingual(say("lab.init_root.written" if done.written else "lab.init_root.up_to_date"))
    backup = f"\n{bilingual(say('label.backup'))}: {done.backup}" if done.backup else ""
    return f"{plan.host_path}: {state}{backup}\n" + guidance("lab.next", str(target.root))


def student_notebook() -> str:
    """Where the student edition is: notebooks/lab.ipynb in a checkout (the package's copy links there)."""
    return os.path.realpath(str(files("runbook_lib") / "data" / "lab.ipynb"))


def command(name: str) -> str:
    """How to type one of this installation's commands: its name when the shell finds this one, else its path
    (after `make run` they live in .venv/bin, which is on no one's PATH until it is activated)."""
    import shutil
    import sys

    mine = os.path.join(os.path.dirname(sys.executable), name)
    found = shutil.which(name)
    if not os.path.exists(mine) or (found and os.path.realpath(found) == os.path.realpath(mine)):
        return name
    return mine


def guidance(code: str, root: str, *, jupyterlab: bool | None = None) -> str:
    """What to open and do next, in both languages (lab.next, lab.next_mistakes in findings.yaml); first how to
    install JupyterLab when this installation has none (``jupyterlab``: whether it has, else looked up)."""
    from importlib.util import find_spec

    from runbook_lib.findings.problem import Problem

    p = Problem.of(code, root=root, notebook=student_notebook(), jupyter=command("jupyter"), runbook=command("runbook"))
    steps = [f"  {part}" for fix in (p.fix.ko, p.fix.en) for part in fix.split("  ")]  # one numbered step a line
    if jupyterlab is None:
        jupyterlab = find_spec("jupyterlab") is not None
    if not jupyterlab:
        need = Problem.of("lab.jupyterlab_missing", python=sys.executable)
        steps[:0] = [f"  {need.what.ko.rstrip('.')}: {need.fix.ko}", f"  {need.what.en.rstrip('.')}: {need.fix.en}"]
    return "\n".join([f"{bilingual(say('label.next'))}:", f"  {p.what.ko}", f"  {p.what.en}", *steps])


def finish_lab(root: str) -> None:
    """A correctly finished lab: the runbook in apply mode on the root, through the notebook's own steps (the
    run the notebook cells drive), with the lab's default parameters. Raises when a step fails."""
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run

    rb = Run(validate(root=os.path.abspath(root), mode="apply")).start()
    try:
        failed = [r for r in rb.run_all().values() if r.failed]
    finally:
        rb.finish()
    if failed:
        first = failed[0]
        raise ValueError(str(say("lab.init_root.could_not_finish_lab", step=first.step, message=first.message)))


def finished_lab(root: str) -> str:
    """`runbook lab-init --finished ROOT`: the fixture and the correctly finished lab (an answer key)."""
    report = lab_init(root)
    finish_lab(root)
    return (f"{report.splitlines()[0]}\n{bilingual(say('lab.init_root.finished'))}: {os.path.abspath(root)}\n"
            f"{bilingual(say('label.next'))}: runbook grade --out grades {os.path.abspath(root)}")


def _remove(target, lab_path: str) -> bool:
    """Delete one file under the root (never through a link out of it); True when there was one."""
    host = target.resolve(lab_path)
    if not host.exists():
        return False
    target.ensure_inside(host.parent)
    os.unlink(host)
    from runbook_lib.fs.safe_write import sync_folder
    sync_folder(host.parent)  # the removal survives a power cut, as every write does
    return True


def add_mistakes(root: str, kinds: str) -> str:
    """`runbook lab-init --mistake KIND[,KIND...] ROOT`: a finished lab, then each mistake made in it.

    A root without a config gets the fixture and the finished lab first. A root that already holds these mistakes
    is left as it is (a second run changes nothing and says so); one holding a lab where a mistake has no place
    (another exercise, a student's own work) is refused: use a new folder. No backup is kept of what a mistake
    replaces, since it would give the answer away."""
    from runbook_lib.lab.mistakes import CONFIG, apply_edit, is_applied, parse_kinds
    from runbook_lib.fs.safe_write import commit, plan_write, read_bytes
    from runbook_lib.fs.target import Target

    chosen = parse_kinds(kinds)
    lab_init(root)
    target = Target(os.path.abspath(root))
    if read_bytes(target.resolve(CONFIG), shown=CONFIG) is None:
        finish_lab(root)
    done, already = [], []
    for m in chosen:
        if all(is_applied(_text(target, e.path), e) for e in m.edits):
            already.append(m)
            continue
        for e in m.edits:
            text = _text(target, e.path)
            if is_applied(text, e):
                continue
            if e.new is None:
                _remove(target, e.path)
                continue
            new = apply_edit(text or "", e)
            if text is None or new is None:
                raise ValueError(str(say("lab.init_root.no_place_mistake_folder", at=e.path, kind=m.kind)))
            commit(plan_write(target, e.path, new.encode("utf-8")), backup=False)
        done.append(m)
    lines = [f"{bilingual(say('label.lab_root'))}: {target.root}"]
    lines += [f"  + {m.kind}: {bilingual(m.name)}" for m in done]
    lines += [f"  = {m.kind}: {bilingual(say('lab.init_root.mistake_already_there'))}" for m in already]
    return "\n".join(lines) + "\n" + guidance("lab.next_mistakes", str(target.root))


def _text(target, lab_path: str) -> str | None:
    from runbook_lib.fs.safe_write import read_bytes

    data = read_bytes(target.resolve(lab_path), shown=lab_path)
    return None if data is None else data.decode("utf-8")
