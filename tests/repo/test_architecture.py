"""The layers of docs/ARCHITECTURE.md, held by the code: no import circle between modules (an import inside a
function counts as much as one at the top), and no package importing a package above its own layer."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "runbook_lib"

# Bottom to top; a module may import its own package and any package below it. docs/ARCHITECTURE.md gives each
# a paragraph, and each package's __init__.py states its rule.
LAYERS = ["findings", "fs", "k8s", "containerd", "cdi", "steps", "engine", "notebook", "evidence",
          "lab", "grading", "cli"]
ENTRY_POINTS = {"runbook_lib.runner", "runbook_lib.show"}  # `python -m` names kept from before the packages


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts).removesuffix(".__init__")
        found[name] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """Every runbook_lib module `name` imports, wherever in the file the import statement is."""
    is_pkg = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in MODULES)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".") if is_pkg else name.split(".")[:-1]
                parts = parts[:len(parts) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in MODULES:
                    out.add(sub)
                elif base in MODULES:
                    out.add(base)
    out.discard(name)
    return out


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _layer(name: str) -> int:
    parts = name.split(".")
    if name == "runbook_lib":
        return -1
    if name in ENTRY_POINTS:
        return len(LAYERS)
    assert parts[1] in LAYERS, f"{name}: a module outside every declared layer (docs/ARCHITECTURE.md)"
    return LAYERS.index(parts[1])


def _cycles() -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return found


def test_the_graph_is_read():
    # the walk must see the package's real edges, or every test below would pass on nothing
    assert "runbook_lib.findings.problem" in GRAPH["runbook_lib.engine.run"]
    assert len(MODULES) > 60


def test_no_import_circle():
    assert _cycles() == []


def test_every_module_belongs_to_a_layer():
    for name in MODULES:
        _layer(name)


@pytest.mark.parametrize("layer", LAYERS)
def test_no_package_imports_a_layer_above_its_own(layer):
    upward = sorted(f"{name} -> {dep}" for name, deps in GRAPH.items() if name.split(".")[1:2] == [layer]
                    for dep in deps if _layer(dep) > _layer(name))
    assert upward == []


@pytest.mark.parametrize("layer", LAYERS)
def test_each_package_states_its_rule(layer):
    doc = ast.get_docstring(ast.parse((PACKAGE / layer / "__init__.py").read_text(encoding="utf-8")))
    assert doc and "May import" in doc, f"runbook_lib/{layer}/__init__.py: say what the layer may import"


# The packages of one run (engine/mode.py's drivers: apply, check, remove): none of them tests the mode as a flag
MODE_DRIVEN = ("fs", "containerd", "cdi", "steps", "engine", "notebook")
MODE_NAMES = {"apply", "check", "remove"}


def _mode_tests(path: Path) -> list[str]:
    """Where a module compares a mode's name (`p.mode == "check"`) or reads a flag of it (`p.check_only`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in ("check_only", "removing") and isinstance(node.ctx, ast.Load):
            found.append(f"{path.name}:{node.lineno} .{node.attr}")
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            named = any(isinstance(s, ast.Attribute) and s.attr == "mode" or isinstance(s, ast.Name) and s.id == "mode"
                        for s in sides)
            if named and any(isinstance(s, ast.Constant) and s.value in MODE_NAMES for s in sides):
                found.append(f"{path.name}:{node.lineno} mode compared")
    return found


def test_the_mode_is_chosen_once_and_asked_of_its_driver():
    found = [hit for name, path in MODULES.items() if name.split(".")[1:2] and name.split(".")[1] in MODE_DRIVEN
             for hit in _mode_tests(path)]
    assert found == []


def test_a_mode_tested_as_a_flag_is_found(tmp_path):
    # the walk above must see the forms it forbids, or it would pass on anything
    module = tmp_path / "flags.py"
    module.write_text('if p.mode == "check" or run.p.check_only:\n    pass\nx = "remove" != mode\ny = p.removing\n')
    assert sorted(_mode_tests(module)) == ["flags.py:1 .check_only", "flags.py:1 mode compared",
                                           "flags.py:3 mode compared", "flags.py:4 .removing"]
