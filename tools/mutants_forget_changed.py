"""Before `mutmut run`: forget mutmut's copy of every module that changed since its last run.

mutmut 3 measures which lines the tests cover (`mutate_only_covered_lines`) on its copies under mutants/, and
copies a source file there only when no copy exists. A module that changed since the last run still has its old,
mutated copy there, whose line numbers are not the source's: the coverage then matches few lines, and most of the
module's mutants are silently never made (safe_write.py: 69 instead of 363). Removing the copy (and its results,
which the change makes stale anyway) lets mutmut copy the source afresh and measure it right.

    python tools/mutants_forget_changed.py     # prints what it forgot
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"


def forget_changed() -> list[str]:
    forgotten = []
    for meta in sorted(MUTANTS.rglob("*.py.meta")):
        rel = meta.relative_to(MUTANTS).with_suffix("")  # runbook_lib/x.py
        copy, source = MUTANTS / rel, ROOT / rel
        if not source.exists() or not copy.exists() or source.stat().st_mtime > copy.stat().st_mtime:
            for stale in (copy, meta):
                stale.unlink(missing_ok=True)
            forgotten.append(str(rel))
    return forgotten


if __name__ == "__main__":
    for rel in forget_changed():
        print(f"mutants/{rel}: the source changed since the last run, made again")
