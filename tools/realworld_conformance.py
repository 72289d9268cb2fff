"""Judge every real-world config of tests/fixtures/realworld/ by every installed real containerd (Debian's 1.6
and the pinned 2.x of scripts/containerd2-versions.txt) and write what happened:

- tests/fixtures/realworld/expected.json, which tests/real/test_real_realworld.py holds every cell to;
- the table between the markers in docs/CONFORMANCE.md (config x containerd version x result).

    .venv/bin/python tools/realworld_conformance.py          # needs root (containerd reads under a root), minutes
    .venv/bin/python tools/realworld_conformance.py NAME...  # judge only these configs again, keep the other rows

Every containerd must be there (scripts/install-containerd2.sh): a table with a missing column is refused.
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "real"))

import realenv  # noqa: E402
import realworld_judge as judge  # noqa: E402

DOC = ROOT / "docs" / "CONFORMANCE.md"
BEGIN, END = "<!-- realworld table: tools/realworld_conformance.py -->", "<!-- end of the realworld table -->"


def binaries() -> dict[str, str]:
    return realenv.installed_containerds()


def cell(v: dict) -> str:
    return f"{v['apply']}; {v['after']}; remove: {v['remove']}"


def table(results: dict) -> str:
    """One row per config and containerd: what it reads before, what apply did, what it reads after, remove."""
    rows = ["| 설정 / config | containerd | 적용 전에 읽는 것 / reads before | 적용 / apply | 적용 뒤에 읽는 것 / reads after "
            "| 제거 / mode=remove |",
            "|---|---|---|---|---|---|"]
    for name in sorted(results):
        for label in realenv.containerd_labels():
            v = results[name][label]
            rows.append(f"| `{name}` | {label} | {v['before']} | {v['apply']} | {v['after']} | {v['remove']} |")
    return "\n".join(rows)


def main(only: list[str]) -> None:
    found = binaries()
    unknown = sorted(set(only) - set(judge.fixtures()))
    if unknown:
        raise SystemExit(f"not a folder of {judge.REALWORLD}: {', '.join(unknown)}")
    kept = judge.expected() if only else {}
    results = {name: row for name, row in kept.items() if name in judge.fixtures() and name not in only}
    for name in only or judge.fixtures():
        results[name] = {}
        for label, binary in found.items():
            with tempfile.TemporaryDirectory(prefix="realworld-") as work:
                results[name][label] = judge.as_dict(judge.judge(name, binary, Path(work)))
            print(f"{name} / {label}: {cell(results[name][label])}", flush=True)
    judge.EXPECTED.write_text(json.dumps(results, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    text = DOC.read_text()
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    DOC.write_text(text[:start] + "\n" + table(results) + "\n" + text[end:])
    print(f"wrote {judge.EXPECTED.relative_to(ROOT)} and the table in {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])
