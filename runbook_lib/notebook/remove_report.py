"""What mode=remove did, file by file, and what it left: shown under the removal in the notebook's first cells.

Every file the runbook may have written is named once: removed (its bytes kept in a backup, or none for a file
the runbook created that held its own bytes), restored (the runbook's lines taken out of a file that was there
before), or kept, with the reason (its bytes are not what the runbook writes: a person wrote or changed it). Then
what stays behind on purpose, the backups, with the command that cleans them once the operator is sure; a lock
file is named only when one stays (this run's goes when it ends).
"""

from __future__ import annotations

import posixpath

from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import bilingual
from runbook_lib.findings.problem import Problem
from runbook_lib.fs.safe_write import BACKUP_INFIX


def _original(backup_lab: str) -> str:
    return backup_lab.split(BACKUP_INFIX, 1)[0]


def report(run, result) -> list[Problem]:
    """The removal's account, one entry per file, then the backups and the lock (their words: findings.yaml)."""
    from runbook_lib.fs.lock import LOCK_DIR, LOCK_NAME
    from runbook_lib.steps.remove import TOOLKIT_FILES

    host = lambda lab: str(run.target.resolve(lab))  # noqa: E731 - the commands work on this machine's paths
    plan = run.plans["remove"]
    backups = {_original(f["path"]): f["path"] for f in result.files if f["action"] == "backup"}
    out, named = [], set()
    for w in plan.writes:
        named.add(w.lab_path)
        backup = backups.get(w.lab_path)
        if backup:
            out.append(Problem.of("remove.done.restored", w.lab_path, file=host(w.lab_path), backup=host(backup)))
        else:  # a file the runbook created: its bytes were the runbook's own
            out.append(Problem.of("remove.done.restored_no_backup", w.lab_path, file=host(w.lab_path)))
    for lab in plan.retire:
        named.add(lab)
        backup = backups.get(lab)
        if backup:
            out.append(Problem.of("remove.done.removed", lab, file=host(lab), backup=host(backup)))
        else:
            out.append(Problem.of("remove.done.removed_no_backup", lab, file=host(lab)))
    candidates = [run.tk(name) for _, name in TOOLKIT_FILES] + [run.p.cdi_spec]
    for lab in candidates:
        if lab not in named and _there(run, lab):
            out.append(Problem.of("remove.done.kept", lab, file=host(lab)))
    left = sorted(_backups(run))
    if left:
        globs = sorted({posixpath.join(posixpath.dirname(b), "*" + BACKUP_INFIX + "*") for b in left})
        out.append(Problem.of("remove.left.backups", count=len(left), backups=", ".join(left), clean=" ".join(globs)))
    lock = run.target.resolve(LOCK_DIR) / LOCK_NAME
    if lock.is_file() and not run.holds_lock(lock):  # this run's own goes when it ends (fs/lock.py)
        out.append(Problem.of("remove.left.lock", file=str(lock)))
    return out


def _there(run, lab: str) -> bool:
    """Something stands at the path (a file, or what is no file: a FIFO, a folder), never read: reading a FIFO
    would wait for ever. A path that leads out of the root is not the runbook's to speak of."""
    import os

    from runbook_lib.findings.errors import RunbookError
    try:
        return os.path.lexists(run.target.resolve(lab))
    except RunbookError:
        return False


def _backups(run) -> list[str]:
    """Every backup the runbook left next to the files it writes (this run's and earlier runs')."""
    folders = {posixpath.dirname(run.p.config_path), posixpath.join(posixpath.dirname(run.p.config_path), "conf.d"),
               run.p.toolkit_dir, posixpath.dirname(run.p.cdi_spec)}
    found = []
    for lab in folders:
        folder = run.target.resolve(lab)
        if folder.is_dir():
            found += [str(p) for p in folder.iterdir() if BACKUP_INFIX in p.name and p.is_file()]
    return found


def text(problems: list[Problem]) -> str:
    lines = [bilingual(say("remove_report.heading"))]
    for p in problems:  # what, then the command that undoes or cleans it (no "fix": nothing here is wrong)
        lines += [f"  • {p.what.ko}", f"    {p.what.en}", f"    {p.fix.ko}", f"    {p.fix.en}"]
    return "\n".join(lines)
