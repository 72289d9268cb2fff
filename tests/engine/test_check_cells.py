"""A check cell asserts exactly what its step's verdict judges, for a value of every type in every key a check
cell asserts (issue 25: `SystemdCgroup = 1` showed a ✓ under the check cell while the verdict failed it; no test
gave a check cell anything but the right value or a quoted string).

The notebook's own cells (notebooks/run.ipynb: the parameters, the validation cell, then one check cell) run in
this process in check mode on a finished lab with one value replaced: the cell's assertions all hold exactly
when the step's own verdict finds nothing (a failed assertion adds an `expect.failed` finding of its own when
the verdict is silent, so that one is left out of the comparison)."""

from __future__ import annotations

import contextlib
import io
import shutil

import pytest

from grading_helpers import CONFIG, SPEC, TOOLKIT, lab_root
from helpers import TEST_DATA
from student_kernel import code_cells

TOML_VALUES = ["true", "false", "1", "0", "1.0", '"true"', '"runc"', '"nvidia"', "1979-05-27T07:32:00Z",
               "1979-05-27", "[true]", "{ a = true }"]
YAML_VALUES = ["true", "1", "1.0", '"1"', "null", "[RuntimeClass]", "{a: 1}", "2001-12-14"]
# cell -> (file, the line as the finished lab has it, that line with {} for the value, the right value)
ASSERTED = {
    "runtime? runtime_type": ("runtime?", CONFIG, 31, 'runtime_type = {}', '"io.containerd.runc.v2"'),
    "options? BinaryName": ("options?", CONFIG, 34, "BinaryName = {}", '"/usr/bin/nvidia-container-runtime"'),
    "options? SystemdCgroup": ("options?", CONFIG, 35, "SystemdCgroup = {}", "true"),
    "default? default_runtime_name": ("default?", CONFIG, 20, "default_runtime_name = {}", '"runc"'),
    "cdi? kind": ("cdi?", SPEC, None, "kind: {}", "nvidia.com/gpu"),
    "runtimeclass? kind": ("runtimeclass?", f"{TOOLKIT}/runtimeclass.yaml", None, "kind: {}", "RuntimeClass"),
    "runtimeclass? handler": ("runtimeclass?", f"{TOOLKIT}/runtimeclass.yaml", None, "handler: {}", "nvidia"),
}
CASES = [(name, value) for name, (_, path, *_rest) in ASSERTED.items()
         for value in (TOML_VALUES if path.endswith(".toml") else YAML_VALUES) + [ASSERTED[name][4]]]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    return lab_root(tmp_path_factory.mktemp("lab"))


@pytest.fixture(scope="module")
def cells():
    return code_cells()


def with_value(finished, tmp_path, name: str, value: str):
    _, rel, line, template, right = ASSERTED[name]
    root = tmp_path / "root"
    shutil.copytree(finished, root, symlinks=True)
    lines = (root / rel).read_text().splitlines(keepends=True)
    if line is None:  # a YAML key: the line that holds it
        line = next(n for n, text in enumerate(lines, 1) if text.strip() == template.format(right))
    indent = lines[line - 1][: len(lines[line - 1]) - len(lines[line - 1].lstrip())]
    assert lines[line - 1].strip() == template.format(right), (rel, line, lines[line - 1])
    lines[line - 1] = indent + template.format(value) + "\n"
    (root / rel).write_text("".join(lines))
    return root


def result_key(rb, step):
    return next(k for k, r in rb.results.items() if r.step == step.NUMBER)


def run_cell(cells, root, cell: str):
    """(the cell's assertions, the step's result) of the check cell run in check mode."""
    ns: dict = {}
    exec(cells["params"], ns)  # noqa: S102 - the notebook's own code
    ns.update(root=str(root), mode="check")
    with contextlib.redirect_stdout(io.StringIO()):
        exec(cells["start"], ns)  # noqa: S102
        try:
            exec(cells[cell], ns)  # noqa: S102
        finally:
            ns["rb"].finish()
    rb = ns["rb"]
    step = rb.step(cell.rstrip("?"))
    return ns["expect"].checks, rb.results[result_key(rb, step)]


@pytest.mark.parametrize("name,value", CASES)
def test_the_cell_and_the_verdict_agree(finished, cells, tmp_path, name, value):
    cell, *_, right = ASSERTED[name]
    checks, result = run_cell(cells, with_value(finished, tmp_path, name, value), cell)
    cell_holds = all(c.ok for c in checks)
    verdict_holds = not [p for p in result.problems if p.is_error and p.code != "expect.failed"]
    assert cell_holds == verdict_holds, (value, [(c.text, c.ok, c.actual) for c in checks], result.text())
    if value == right:
        assert cell_holds and result.status != "failed", result.text()


MISPLACED = ["unquoted-dotted-header.toml", "v1-path-in-v2-file.toml", "v2-path-in-v3-file.toml"]
BINARY = '"/usr/bin/nvidia-container-runtime"'


@pytest.mark.parametrize("fixture", MISPLACED)
@pytest.mark.parametrize("binary", [BINARY, '"nvidia-container-runtime"', "true"])
def test_the_options_cell_reads_a_misplaced_table_where_its_verdict_judges_it(finished, cells, tmp_path, fixture, binary):
    """A misplaced runtime table (step 2's finding) has its options judged where it stands (issue 41: right
    options keep step 3's points): the cell reads that table too, so right options are a passing step 3 with
    every assertion ✓ (the cell read the expected path and showed ✗ "missing" above it), wrong ones fail both."""
    root = tmp_path / "root"
    shutil.copytree(finished, root, symlinks=True)
    text = (TEST_DATA / "broken" / fixture).read_text()
    assert text.count(f"BinaryName = {BINARY}") == 1, fixture
    (root / CONFIG).write_text(text.replace(f"BinaryName = {BINARY}", f"BinaryName = {binary}"))
    checks, result = run_cell(cells, root, "options?")
    assert checks, "the cell asserted nothing"
    cell_holds = all(c.ok for c in checks)
    verdict_holds = not [p for p in result.problems if p.is_error and p.code != "expect.failed"]
    assert cell_holds == verdict_holds == (binary == BINARY), (
        [(c.text, c.ok, c.actual) for c in checks], result.text())
    assert result.status == ("passed" if binary == BINARY else "failed"), result.text()
