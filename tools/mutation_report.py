"""The mutation score of `make mutate`, and every surviving mutant (mutmut's results under mutants/).

    python tools/mutation_report.py            # the score per module and the survivors, as markdown
    python tools/mutation_report.py --check    # ... and exit 1 when a survivor is not explained in docs/TESTING.md

A survivor is a change to a module that decides verdicts or writes that no test noticed: it is either killed by a
new test or named in docs/TESTING.md with why it is equivalent, that is, why no behaviour can tell it from the
original. It is named by its mutant name in backticks, or, so that the explanation survives mutmut numbering the
function's mutants anew, by its function and its change: `pkg.mod.x_f`: `return a + 0` → `return a - 0`. A mutant mutmut could not judge (a timeout, "suspicious") counts as a
survivor too: it proves nothing.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import mutation_record  # tools/, beside this file

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
DOC = ROOT / "docs" / "TESTING.md"
KILLED, NOT_CHECKED = mutation_record.KILLED, mutation_record.NOT_CHECKED


def results() -> dict[str, dict[str, int | None]]:
    """{module path: {mutant name: mutmut's exit code}}: mutmut's own notes under mutants/, or, on a machine
    without them, the record kept in the repository (tools/mutation_record.py, saved by `make mutate`)."""
    out = {}
    for meta in sorted(MUTANTS.rglob("*.py.meta")):
        data = json.loads(meta.read_text())
        rel = str(meta.relative_to(MUTANTS))[: -len(".meta")]
        if data.get("exit_code_by_key"):
            out[rel] = data["exit_code_by_key"]
    return out or {module: entry["results"] for module, entry in mutation_record.load().items() if entry["results"]}


def survivors(found) -> list[str]:
    return sorted(name for codes in found.values() for name, code in codes.items()
                  if code not in KILLED | NOT_CHECKED)


def changes() -> dict[str, str]:
    """{survivor: its change}: from mutmut's mutated copies under mutants/, or the record's."""
    out = {}
    for module, entry in mutation_record.load().items():
        out.update(entry.get("changes", {}))
    for meta in sorted(MUTANTS.rglob("*.py.meta")):
        mutated = meta.with_name(meta.name[: -len(".meta")])
        if mutated.is_file():
            codes = json.loads(meta.read_text()).get("exit_code_by_key", {})
            source = mutated.read_text(encoding="utf-8")
            for name, code in codes.items():
                if mutation_record.survived(code):
                    out[name] = mutation_record.change_of(source, name) or out.get(name)
    return {k: v for k, v in out.items() if v}


def by_change(name: str, change: str) -> str:
    """How docs/TESTING.md names a survivor by its function and its change."""
    removed, _, added = change.partition(" → ")
    return f"`{name.rpartition('__mutmut_')[0]}`: `{removed}` → `{added}`"


def unexplained(found, doc: str, diffs: dict[str, str] | None = None) -> list[str]:
    """The survivors docs/TESTING.md does not name under its "## Equivalent mutants", by their mutant name in
    backticks or by their function and change (``diffs``: {survivor: change})."""
    explained = doc.split("## Equivalent mutants", 1)[-1]
    diffs = diffs or {}
    return [name for name in survivors(found) if f"`{name}`" not in explained
            and not (name in diffs and by_change(name, diffs[name]) in explained)]


def unchecked(found) -> list[str]:
    return [name for codes in found.values() for name, code in codes.items() if code in NOT_CHECKED]


def table(found) -> str:
    """The score per module, the first part of the report: what docs/TESTING.md shows for the last full run."""
    return report(found).split("\n\n", 1)[0]


def report(found) -> str:
    lines = ["| module | mutants | killed | survived | score |", "| --- | ---: | ---: | ---: | ---: |"]
    total = Counter()
    for module, codes in found.items():
        killed = sum(c in KILLED for c in codes.values())
        judged = sum(c not in NOT_CHECKED for c in codes.values())
        total.update(mutants=judged, killed=killed)
        lines.append(f"| `{module}` | {judged} | {killed} | {judged - killed} | {killed / judged:.1%} |"
                     if judged else f"| `{module}` | 0 | 0 | 0 | - |")
    if total["mutants"]:
        lines.append(f"| **all** | {total['mutants']} | {total['killed']} | {total['mutants'] - total['killed']} | "
                     f"{total['killed'] / total['mutants']:.1%} |")
    unchecked = sum(c in NOT_CHECKED for codes in found.values() for c in codes.values())
    if unchecked:
        lines.append(f"\n{unchecked} mutants not checked yet: the run did not finish.")
    lines += ["", "Survivors:", ""] + [f"- `{name}`" for name in survivors(found)]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    found = results()
    if not found:
        print("no mutmut results under mutants/ nor in docs/mutation-record.json: run `make mutate` first", file=sys.stderr)
        return 2
    print(report(found))
    if "--check" in argv:
        left, open_ = unexplained(found, DOC.read_text(encoding="utf-8"), changes()), unchecked(found)
        if left or open_:
            print(f"\n{len(left)} survivors not explained in docs/TESTING.md (## Equivalent mutants), "
                  f"{len(open_)} not checked:", file=sys.stderr)
            diffs = changes()
            for name in left:
                print(f"  {name}" + (f"   (or {by_change(name, diffs[name])})" if name in diffs else ""), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
