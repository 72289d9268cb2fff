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
    from runbook_lib.params import DEFAULTS
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
