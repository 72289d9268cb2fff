"""The committed notebook: clean, one parameters cell, both languages in every markdown cell, built from the
generator."""

import ast
import json
import re
import sys

from helpers import NOTEBOOK, REPO

HANGUL = re.compile(r"[\uac00-\ud7a3]")
LATIN_WORD = re.compile(r"\b[A-Za-z]{3,}\b")


def cells():
    return json.loads(NOTEBOOK.read_text())["cells"]


def test_committed_without_outputs():
    for c in cells():
        if c["cell_type"] == "code":
            assert c["outputs"] == [] and c["execution_count"] is None


def test_exactly_one_parameters_cell_each_parameter_typed_and_explained():
    tagged = [c for c in cells() if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1
    source = "".join(tagged[0]["source"])
    names = []
    for line in source.splitlines():
        code, _, comment = line.partition("  # ")
        assert comment, f"parameter without a help comment: {line}"
        assert re.match(r"(str|bool|int|float): ", comment), f"no type annotation: {line}"
        assert "=" not in comment, f"papermill drops help comments containing '=': {line}"
        assert HANGUL.search(comment) and " / " in comment, f"help must be Korean / English: {line}"
        names.append(ast.parse(code).body[0].targets[0].id)
    from runbook_lib.engine.params import DEFAULTS
    assert names == list(DEFAULTS)


def test_every_markdown_cell_speaks_korean_then_english():
    for c in cells():
        if c["cell_type"] != "markdown":
            continue
        text = "".join(c["source"])
        assert HANGUL.search(text), text[:80]
        first_hangul = HANGUL.search(text).start()
        english = [m for m in LATIN_WORD.finditer(text[first_hangul:]) if m.group().lower() not in
                   {"nvidia", "containerd", "toml", "runtimeclass", "runc", "cdi", "yaml", "root", "mode", "apply", "check"}]
        assert len(english) > 15, "the English half is missing: " + text[:80]


def test_notebook_is_what_the_generator_writes():
    sys.path.insert(0, str(REPO / "tools"))
    import build_notebook
    assert NOTEBOOK.read_text() == build_notebook.render(), "run `make notebook` after editing tools/build_notebook.py"


def test_packaged_notebook_is_the_same_file():
    from importlib import resources
    assert (resources.files("runbook_lib") / "data" / "run.ipynb").read_bytes() == NOTEBOOK.read_bytes()


def test_the_notebook_is_shipped_once():
    """The package's notebook is a link to notebooks/run.ipynb, not a second copy to keep in step."""
    link = REPO / "runbook_lib" / "data" / "run.ipynb"
    assert link.is_symlink() and link.resolve() == NOTEBOOK.resolve()


def test_the_parameter_reference_comes_from_the_one_definition():
    """docs/PARAMETERS.md is what `make notebook` writes from runbook_lib/data/parameters.yaml."""
    sys.path.insert(0, str(REPO / "tools"))
    import build_notebook
    doc = (REPO / "docs" / "PARAMETERS.md").read_text(encoding="utf-8")
    assert doc == build_notebook.parameters_doc(doc), "run `make notebook`: docs/PARAMETERS.md's table is stale"
    assert f"{build_notebook.TABLE_START}\n{build_notebook.markdown_table()}\n{build_notebook.TABLE_END}" in doc


def test_step_sections_name_the_action_and_show_the_assertions():
    """Every step section: an action cell naming the plan of its step, the write, and a check cell that states
    assertions visibly (no dispatch by step number)."""
    from runbook_lib.steps import STEPS
    sources = ["".join(c["source"]) for c in cells() if c["cell_type"] == "code"]
    assert not any(re.search(r"nb\.(step|check)\(rb, \d", s) for s in sources)
    for step in STEPS:
        if step.ID == "restart":
            continue
        assert any(f'rb.plan("{step.ID}")' in s for s in sources), step.ID
        (check,) = [s for s in sources if f'rb.expect("{step.ID}")' in s or f'rb.check("{step.ID}")' in s]
        # short enough to read at a glance; the pod's and containerd's cells state the rules of two modes each
        assert len(check.splitlines()) <= (11 if step.ID in ("pod", "containerd") else 10), check
    # every step but the restart writes its plan; the pod step starts its pod instead (it writes nothing)
    assert sum("rb.write(plan)" in s and "display(plan)" in s for s in sources) == len(STEPS) - 2
    assert sum("rb.try_pod(plan)" in s and "display(plan)" in s for s in sources) == 1
    assert any("expect.boolean(" in s and "SystemdCgroup" in s for s in sources)
    assert any("tomllib" in s for s in sources)


def test_each_step_section_is_headed_by_the_steps_own_title():
    """One title a step: the notebook's headings are the step's title (the catalog's title.<id>) in each language,
    the words its record, the summary and the class page show."""
    from runbook_lib.steps import STEPS
    headings = [line for c in cells() if c["cell_type"] == "markdown" for line in "".join(c["source"]).split("\n")
                if line.startswith("## ")]
    for step in (s for s in STEPS if isinstance(s.number, int)):
        assert f"## {step.number}단계 — {step.title.ko}" in headings, step.id
        assert f"## Step {step.number} — {step.title.en}" in headings, step.id
