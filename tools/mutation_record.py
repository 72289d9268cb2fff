"""mutmut's results, kept in the repository so that a `make mutate` on another machine goes on from them.

mutmut keeps what it judged under mutants/ (not committed: copies of the whole package, mutated), so each new
machine started from nothing, and a full run (about 5,000 mutants on two cores) takes longer than a working
session. The record (`docs/mutation-record.json`) holds, for each mutated module, what mutmut needs to trust an
old result: the hash of each function's source when it was judged, and each mutant's exit code; and, for each
survivor, its change (``change_of``: the lines it removes and adds), by which docs/TESTING.md may explain it whatever
number mutmut gives it next time (the numbers follow the covered lines, so they move when coverage grows).

    python tools/mutation_record.py restore   # before `mutmut run`: the record's results, where mutants/ has none
    python tools/mutation_record.py save      # after it: every result under mutants/ into the record

Restoring writes a module's `.meta` only where mutants/ has none, and never its mutated copy: mutmut then makes the
module's mutants afresh and, as it does after any change (mutmut 3.8, `create_mutants_for_file`), keeps the result
of each function whose hash is unchanged and judges the others again. So a result is only ever reused for the
source it was judged on.
"""

from __future__ import annotations

import ast
import difflib
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
RECORD = ROOT / "docs" / "mutation-record.json"
KILLED = {1, 3, 37}  # a failing test, pytest's internal error, the type check (mutmut's stats.py)
NOT_CHECKED = {None}


def survived(code) -> bool:
    """A judged mutant no test killed (a timeout or "suspicious" too: it proves nothing)."""
    return code not in KILLED | NOT_CHECKED


def change_of(mutated_source: str, mutant: str) -> str | None:
    """The change a mutant makes, as the lines it removes and adds, stripped: `return a + 0 → return a - 0` (several
    lines joined by " / "). Read from mutmut's mutated copy of the module, which holds the original of each function
    (`x_f__mutmut_orig`) beside each of its mutants (`x_f__mutmut_3`); None when either is not there."""
    fn, _, number = mutant.rpartition("__mutmut_")
    fn = fn.rpartition(".")[2]
    bodies = {}
    for node in ast.walk(ast.parse(mutated_source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in (f"{fn}__mutmut_orig", f"{fn}__mutmut_{number}"):
            lines = ast.get_source_segment(mutated_source, node, padded=True).splitlines()[1:]  # the body, not its name
            bodies["orig" if node.name.endswith("_orig") else "mutant"] = [line.strip() for line in lines]
    if len(bodies) != 2:
        return None
    diff = list(difflib.ndiff(bodies["orig"], bodies["mutant"]))
    removed, added = [d[2:] for d in diff if d[:2] == "- "], [d[2:] for d in diff if d[:2] == "+ "]
    return f"{' / '.join(removed)} → {' / '.join(added)}"


def _meta_files(mutants: Path) -> dict[str, Path]:
    """{source path of a mutated module: its .meta under mutants/}."""
    return {str(meta.relative_to(mutants))[: -len(".meta")]: meta for meta in sorted(mutants.rglob("*.py.meta"))}


def load(record: Path = RECORD) -> dict[str, dict]:
    """{module: {"hashes": {function: hash}, "results": {mutant: exit code, or None when not judged yet}}}; empty
    without a record."""
    return json.loads(record.read_text(encoding="utf-8")) if record.is_file() else {}


def _function(mutant: str) -> str:
    """The function a mutant changes, as mutmut's notes name it: `pkg.mod.xǁRunǁtk__mutmut_3` -> `xǁRunǁtk`."""
    return mutant.rpartition("__mutmut_")[0].rpartition(".")[2]


def merged(entry: dict, data: dict) -> dict:
    """A module's entry from mutmut's notes (``data``, a .meta), keeping the record's result for a mutant those
    notes have not judged when its function's hash is still the one it was judged on."""
    hashes = dict(sorted(data.get("hash_by_function_name", {}).items()))
    results = {}
    for mutant, code in sorted(data.get("exit_code_by_key", {}).items()):
        if code is None and hashes.get(_function(mutant)) == entry.get("hashes", {}).get(_function(mutant)):
            code = entry.get("results", {}).get(mutant)
        results[mutant] = code  # None: not judged yet, kept so that the report read from the record says so
    return {"hashes": hashes, "results": results}


def _read_meta(meta: Path, tries: int = 5) -> dict:
    """A .meta as mutmut last wrote it. mutmut rewrites it in place after each result (open "w", then json.dump), so
    a save while a run goes on can read it half written: read again a moment later."""
    for _ in range(tries - 1):
        try:
            return json.loads(meta.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            time.sleep(0.2)
    return json.loads(meta.read_text(encoding="utf-8"))  # still half written: its error says which file


def save(mutants: Path = MUTANTS, record: Path = RECORD) -> int:
    """Every judged mutant under mutants/ into the record, with the record's results mutmut has not judged again on
    unchanged functions. Returns how many results the record holds."""
    out = load(record)
    for module, meta in _meta_files(mutants).items():
        entry = merged(out.get(module, {}), _read_meta(meta))
        if entry["hashes"]:  # a module with no function to mutate (an __init__.py) has nothing to keep
            changes = _changes(mutants / module, entry, out.get(module, {}).get("changes", {}))
            if changes:  # a module whose mutants were all killed has none to explain
                entry["changes"] = changes
            out[module] = entry
    out = dict(sorted(out.items()))
    record.parent.mkdir(parents=True, exist_ok=True)
    # One mutant per line: a run's changes read as a diff of the lines that changed.
    partial = record.with_name(record.name + ".partial")  # replaced whole: a stopped save leaves the old record
    partial.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    partial.replace(record)
    return sum(code is not None for entry in out.values() for code in entry["results"].values())


def _changes(mutated: Path, entry: dict, before: dict) -> dict[str, str]:
    """{survivor: its change}: read from the mutated copy when there is one, else kept from the record."""
    source = mutated.read_text(encoding="utf-8") if mutated.is_file() else None
    out = {}
    for mutant, code in entry["results"].items():
        if survived(code):
            change = change_of(source, mutant) if source is not None else None
            if change or mutant in before:
                out[mutant] = change or before[mutant]
    return dict(sorted(out.items()))


def restore(mutants: Path = MUTANTS, record: Path = RECORD) -> list[str]:
    """The record's results as mutmut's own `.meta` files, for each module mutants/ has none of (a fresh machine,
    or a module whose notes were deleted); the module's mutated copy is removed with it, so that mutmut makes its
    mutants afresh and compares each function's hash. Returns the modules restored."""
    restored = []
    for module, entry in load(record).items():
        meta = mutants / f"{module}.meta"
        if meta.exists():
            continue
        meta.parent.mkdir(parents=True, exist_ok=True)
        (mutants / module).unlink(missing_ok=True)
        (mutants / f"{module}.spans").unlink(missing_ok=True)
        meta.write_text(json.dumps({"exit_code_by_key": entry["results"], "hash_by_function_name": entry["hashes"],
                                    "type_check_error_by_key": {}, "durations_by_key": {},
                                    "estimated_durations_by_key": {}}, indent=4), encoding="utf-8")
        restored.append(module)
    return restored


def main(argv: list[str]) -> int:
    if argv == ["save"]:
        print(f"{RECORD.relative_to(ROOT)}: {save()} results")
        return 0
    if argv == ["restore"]:
        for module in restore():
            print(f"mutants/{module}.meta: restored from {RECORD.relative_to(ROOT)}")
        return 0
    print(__doc__.strip().splitlines()[0], "\nusage: python tools/mutation_record.py save|restore", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
