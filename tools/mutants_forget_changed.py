"""Before `mutmut run`: forget mutmut's copy of every file that changed since its last run.

mutmut 3.8 copies a file to mutants/ only when no copy exists there, and measures which lines the tests cover
(`mutate_only_covered_lines`) on those copies before it makes the mutants afresh. So a stale copy is run:

- a mutated module that changed still has its old, mutated copy, whose line numbers are not the source's: the
  coverage then matches few lines, and most of the module's mutants are silently never made (safe_write.py: 69
  instead of 363). Its copy and its line spans go; its results (`.meta`) stay: mutmut, making the mutants
  afresh, keeps the result of each function whose hash it noted is unchanged and judges the changed ones again.
- any other module or test that changed is run as it was: the coverage run then fails on an import of a name that
  exists only in the new source, or measures old code. Its copy goes.
- a file whose source is gone (a removed test) would still be collected. Its copy goes.

mutmut then copies each source afresh and measures it right.

    python tools/mutants_forget_changed.py     # prints what it forgot
"""

from __future__ import annotations

import filecmp
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
OWN = {"mutmut-stats.json", "mutmut-killers.tsv"}  # mutmut's own records and the tests' (tests/mutation_order.py), not copies
BESIDE_A_COPY = (".meta", ".spans")  # mutmut's notes about the copy of a mutated module
STALE_WITH_THE_COPY = (".spans",)  # the lines of the old copy; .meta holds results mutmut keeps by function hash


def _stale(copy: Path, source: Path) -> bool:
    if not source.is_file():
        return True
    if Path(f"{copy}.meta").exists():  # mutated: the copy never equals its source, its time tells
        return source.stat().st_mtime > copy.stat().st_mtime
    return not filecmp.cmp(copy, source, shallow=False)


def forget_changed() -> list[str]:
    forgotten = []
    if not MUTANTS.is_dir():
        return forgotten
    for copy in sorted(MUTANTS.rglob("*")):
        rel = copy.relative_to(MUTANTS)
        if (not copy.is_file() or "__pycache__" in rel.parts or str(rel) in OWN
                or copy.name.endswith(BESIDE_A_COPY)):
            continue
        if _stale(copy, ROOT / rel):
            for gone in (copy, *(Path(f"{copy}{suffix}") for suffix in STALE_WITH_THE_COPY)):
                gone.unlink(missing_ok=True)
            forgotten.append(str(rel))
    return forgotten


if __name__ == "__main__":
    for rel in forget_changed():
        print(f"mutants/{rel}: changed or gone since the last run, copied again")
