"""Bring Python files, docs and configs from the old flat layout of runbook_lib onto the packages of
docs/ARCHITECTURE.md, by the map in tools/layout_map.txt (old module -> new module).

    python tools/relayout.py rewrite FILE...   # rewrite imports, dotted names and paths in FILEs, in place
    python tools/relayout.py move              # git mv every old module to its new place (once, on main)

Idempotent: a name already on the new layout is left as it is, so a branch begun before the restructure can
run `rewrite` over its own new files after a rebase.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAP = {old: new for old, new in (line.split() for line in (ROOT / "tools" / "layout_map.txt").read_text().splitlines()
                                 if line.strip() and not line.startswith("#"))}
# every module and package of the new layout: the map's targets, their parent packages, and unmoved modules
NEW: set[str] = set()
for new in MAP.values():
    parts = new.split(".")
    NEW.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
# entry points kept at their old names (`python -m runbook_lib.runner`, `python -m runbook_lib.show`)
NEW.update({"runbook_lib.runner", "runbook_lib.show"})
for path in (ROOT / "runbook_lib").rglob("*.py"):
    mod = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    mod = mod.removesuffix(".__init__")
    if mod not in MAP:
        NEW.add(mod)


def _longest(dotted: str, names) -> str | None:
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        if ".".join(parts[:i]) in names:
            return ".".join(parts[:i])
    return None


def new_name(dotted: str, exact_maps: bool) -> str:
    """The name on the new layout. ``exact_maps``: a name that is exactly an old module which is also a new
    package (runbook_lib.kernel, .cli, .findings) means the old module (in an import or a path), not the
    package (as in `python -m runbook_lib.kernel`, which the package's __main__ keeps working)."""
    old = _longest(dotted, MAP)
    if old is None:
        return dotted
    new = _longest(dotted, NEW)
    if new is not None and len(new.split(".")) > len(old.split(".")):
        return dotted  # already on the new layout
    if dotted == old and old in NEW and not exact_maps:
        return dotted
    return MAP[old] + dotted[len(old):]


def module_of(path: Path) -> str | None:
    try:
        rel = path.resolve().relative_to(ROOT)
    except ValueError:
        return None
    mod = ".".join(rel.with_suffix("").parts)
    return mod.removesuffix(".__init__")


def is_module(dotted: str) -> bool:
    return dotted in MAP or dotted in NEW


def _absolute(node: ast.ImportFrom, mod: str | None, is_pkg: bool) -> str:
    if not node.level:
        return node.module or ""
    base = mod.split(".") if mod else []
    if not is_pkg:
        base = base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _import_lines(node: ast.ImportFrom, mod: str | None, is_pkg: bool) -> list[str] | None:
    absmod = _absolute(node, mod, is_pkg)
    if not absmod.startswith("runbook_lib"):
        return None
    groups: dict[str, list[str]] = {}
    for alias in node.names:
        sub = f"{absmod}.{alias.name}"
        if is_module(sub):
            target = new_name(sub, exact_maps=True)
            parent, last = target.rsplit(".", 1)
            local = alias.asname or alias.name
            groups.setdefault(parent, []).append(last if last == local else f"{last} as {local}")
        else:
            target = new_name(absmod, exact_maps=True)
            groups.setdefault(target, []).append(alias.name + (f" as {alias.asname}" if alias.asname else ""))
    return [f"from {m} import {', '.join(names)}" for m, names in groups.items()]


DOTTED = re.compile(r"(?<![\w.])runbook_lib(?:\.\w+)+")
PATHLIKE = re.compile(r"(?<![\w/])runbook_lib(?:/\w+)+\.py\b")


IMPORT_IN_TEXT = re.compile(r"\bfrom (runbook_lib(?:\.\w+)*) import (\w+)((?: as \w+)?)")


PLAIN_IMPORT_IN_TEXT = re.compile(r"(?<![\w.])import (runbook_lib(?:\.\w+)+)")


def _import_in_text(m: re.Match) -> str:
    module, name, alias = m.group(1), m.group(2), m.group(3)
    sub = f"{module}.{name}"
    if is_module(sub):
        parent, last = new_name(sub, exact_maps=True).rsplit(".", 1)
        return f"from {parent} import {last}{alias or ('' if last == name else ' as ' + name)}"
    return f"from {new_name(module, exact_maps=True)} import {name}{alias}"


def rewrite_text(text: str) -> str:
    """Imports written inside strings (a cell's source, a kernel's exec_lines), then dotted names and paths."""
    text = IMPORT_IN_TEXT.sub(_import_in_text, text)
    text = PLAIN_IMPORT_IN_TEXT.sub(lambda m: "import " + new_name(m.group(1), exact_maps=True), text)
    text = PATHLIKE.sub(lambda m: new_name(m.group(0)[:-3].replace("/", "."), True).replace(".", "/") + ".py", text)
    return DOTTED.sub(lambda m: new_name(m.group(0), False), text)


def rewrite_python(path: Path, text: str) -> str:
    tree = ast.parse(text)
    mod = module_of(path)
    is_pkg = path.name == "__init__.py"
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            new = _import_lines(node, mod, is_pkg)
            if new is None:
                continue
            start = offsets[node.lineno - 1] + node.col_offset
            end = offsets[node.end_lineno - 1] + node.end_col_offset
            indent = " " * node.col_offset
            edits.append((start, end, ("\n" + indent).join(new)))
        elif isinstance(node, ast.Import):
            names = []
            for alias in node.names:
                name = new_name(alias.name, exact_maps=True) if alias.name.startswith("runbook_lib") else alias.name
                names.append(name + (f" as {alias.asname}" if alias.asname else ""))
            start = offsets[node.lineno - 1] + node.col_offset
            end = offsets[node.end_lineno - 1] + node.end_col_offset
            edits.append((start, end, "import " + ", ".join(names)))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def rewrite(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    new = text
    if path.suffix == ".py":
        new = rewrite_python(path, new)
    new = rewrite_text(new)
    if new != text:
        path.write_text(new, encoding="utf-8")
        return True
    return False


def move() -> None:
    for old, new in MAP.items():
        src = ROOT / (old.replace(".", "/") + ".py")
        dst = ROOT / (new.replace(".", "/") + ".py")
        if not src.exists():
            continue
        if old == new and (ROOT / old.replace(".", "/")).with_suffix(".py").exists():
            dst = ROOT / new.replace(".", "/") / "__init__.py"  # a module that becomes a package of that name
        dst.parent.mkdir(parents=True, exist_ok=True)
        init = dst.parent / "__init__.py"
        subprocess.run(["git", "mv", str(src), str(dst)], check=True, cwd=ROOT)
        if not init.exists():
            init.write_text("")
            subprocess.run(["git", "add", str(init)], check=True, cwd=ROOT)


if __name__ == "__main__":
    if sys.argv[1:2] == ["move"]:
        move()
    elif sys.argv[1:2] == ["rewrite"]:
        for f in sys.argv[2:]:
            if rewrite(Path(f)):
                print("rewrote", f)
    else:
        sys.exit(__doc__)
