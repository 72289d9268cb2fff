"""What the steps that write a toolkit file share: the file's verdict against what the plan says it must hold.

The expected content is the plan's (computed on the state the earlier plans leave), so when an earlier step
is wrong the fix shows the lines the file will hold once that step is fixed, never the broken state.
"""

from __future__ import annotations

import itertools

from runbook_lib.findings.problem import Problem


def expected_text(run, step_id: str, lab_path: str, fallback) -> str:
    planned = run.plans.get(step_id).new(lab_path) if run.plans.get(step_id) else None
    if planned is not None:
        return planned.decode()
    run.read_bytes(lab_path)  # the plan failed: a FIFO or a folder standing there is the finding, raised first
    return fallback()


def file_problems(run, lab_path: str, expected: str, *, depends: tuple[str, ...] = ()) -> list[Problem]:
    got = run.read_text(lab_path)
    shown = expected.strip().replace("\n", " / ")
    earlier = [r.step for r in run.results.values() if r.id in depends and r.failed]
    if got is None:  # missing whatever else is wrong: said now, with the lines it holds once that is fixed
        return [Problem.of("file.missing", lab_path, file=lab_path, expected=shown)]
    if earlier:  # what the file derives from is wrong: it cannot pass, and the fix is the lines after that fix
        return [Problem.of("file.after_earlier_step", lab_path, step=earlier[0], file=lab_path, expected=shown)]
    if got == expected:
        return []
    wrong = [(i + 1, g, e) for i, (g, e) in enumerate(itertools.zip_longest(got.splitlines(), expected.splitlines()))
             if g != e]
    if not wrong:  # the same lines, other line endings or no final newline
        return [Problem.of("file.line_endings", lab_path, file=lab_path, expected=shown)]
    if all(g is not None and e is not None and g != e and g.replace("True", "true").replace("False", "false") == e
           for _, g, e in wrong):  # print(f"...={value}") of a parsed boolean
        n, g, e = wrong[0]
        return [Problem.of("file.python_boolean", lab_path, n, file=lab_path, at=n, got=g, fixed=e, expected=shown)]
    ko = "; ".join(f"{n}번째 줄 {_shown(g, 0) if g is not None else '(없음)'} → {e if e is not None else '(지울 줄)'}" for n, g, e in wrong)
    en = "; ".join(f"line {n} {_shown(g, 1) if g is not None else '(missing)'} → {e if e is not None else '(delete)'}" for n, g, e in wrong)
    return [Problem.of("file.differs", lab_path, wrong[0][0], file=lab_path, expected=shown, lines_ko=ko, lines_en=en)]


_INVISIBLE = (("\ufeff", "맨 앞에 보이지 않는 BOM(U+FEFF)", "an invisible BOM (U+FEFF) at the start"),
              ("\t", "탭 문자", "a tab character"))


def _shown(line: str, lang: int) -> str:
    """A line as written, with what cannot be seen in it named (a space at the end, a BOM, a tab)."""
    said = [words[1 + lang] for words in _INVISIBLE if words[0] in line]
    body = line.replace("\ufeff", "")
    if body != body.rstrip(" "):
        said.append(("줄 끝에 공백", "a space at the end")[lang])
    if body != body.lstrip(" "):
        said.append(("줄 앞에 공백", "a space at the start")[lang])
    return body + (f" ({', '.join(said)})" if said else "")
