"""Read a YAML document that must be a mapping (the CDI spec, the RuntimeClass), with errors that name the
file, the line and column, and what the document should hold."""

from __future__ import annotations

import copy
from functools import lru_cache

import yaml

from runbook_lib.findings.errors import ConfigError
from runbook_lib.findings.messages import Msg
from runbook_lib.findings.catalog import say
from runbook_lib.findings.problem import words


# libyaml's loader when PyYAML was built with it (about ten times faster); the same safe subset of YAML.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# Bounds on what a document may make its reader build: nesting (a 50,000-deep [[[...]]] would exhaust the C
# stack of the composer) and alias expansion ("billion laughs": nine aliases nine times over make a billion
# nodes from twenty lines; Kubernetes' YAML parser refuses that as "excessive aliasing"). A CDI spec nvidia-ctk
# writes is six levels deep and has no alias at all.
MAX_DEPTH = 100
MAX_ALIAS_NODES = 100_000


class Excessive(yaml.YAMLError):
    """A document beyond one of the bounds above; ``code`` names its finding, ``problem_mark`` its line."""

    def __init__(self, code: str, mark, **values):
        super().__init__(code)
        self.code, self.problem_mark, self.values = code, mark, values
        self.problem = code


def check_bounds(text: str) -> None:
    """Walk the document's events (libyaml's parser keeps its own stacks, nothing is built): raise Excessive
    for a nesting deeper than MAX_DEPTH or aliases that would expand to more than MAX_ALIAS_NODES nodes.
    A syntax error is left to the loader, which says where it is."""
    sizes: list[int] = [0]       # the nodes counted so far in each open collection (the outermost: the stream)
    anchors: list[str | None] = [None]
    anchored: dict[str, int] = {}
    added = 0
    try:
        for event in yaml.parse(text, Loader=_LOADER):
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                if len(sizes) > MAX_DEPTH:
                    raise Excessive("input.too_deep", event.start_mark, limit=MAX_DEPTH)
                sizes.append(1)
                anchors.append(event.anchor)
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                size, anchor = sizes.pop(), anchors.pop()
                sizes[-1] += size
                if anchor:
                    anchored[anchor] = size
            elif isinstance(event, yaml.ScalarEvent):
                sizes[-1] += 1
                if event.anchor:
                    anchored[event.anchor] = 1
            elif isinstance(event, yaml.AliasEvent):
                size = anchored.get(event.anchor, 1)
                sizes[-1] += size
                added += size
                if added > MAX_ALIAS_NODES:
                    raise Excessive("yaml.too_many_aliases", event.start_mark, nodes=MAX_ALIAS_NODES)
    except Excessive:
        raise
    except yaml.YAMLError as exc:
        # libyaml's own bound (1000 flow levels, met by its scanner before the parser hands out the 101st
        # level: [[[... 100,000 deep) is the same finding as ours, not a syntax error with an indentation hint
        if "maximum nesting depth" in str(getattr(exc, "problem", "") or exc):
            raise Excessive("input.too_deep", getattr(exc, "problem_mark", None), limit=MAX_DEPTH) from None
        return


def safe_load(text: str):
    """yaml.safe_load within the bounds above (an Excessive error otherwise). A copy of the one parse of this
    text, so that a caller that changes what it got cannot change what the next one reads."""
    return copy.deepcopy(_loaded(text))


# One parse per text: a run reads the same CDI spec in its plan, its verdict, the check cell and the preflight
# (about ten times); a 500 KiB spec costs ~1 s of libyaml each time, ~0.05 s to copy.
@lru_cache(maxsize=4)
def _loaded(text: str):
    check_bounds(text)
    return yaml.load(text, Loader=_LOADER)


@lru_cache(maxsize=4)
def compose(text: str):
    """The document's node tree (each node with its line), within the bounds above; shared: read it, never
    change it. None for a document with a syntax error (the loader says where it is)."""
    check_bounds(text)
    try:
        return yaml.compose(text, Loader=_LOADER)
    except yaml.YAMLError:
        return None


def load_mapping(text: str, lab_path: str, *, name: Msg, keys: str, restart_hint: bool = False) -> dict:
    """``name`` says what the document is ("CDI 스펙"/"the CDI spec"); ``keys`` lists the keys it needs."""
    try:
        doc = safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        line, col = (mark.line + 1, mark.column + 1) if mark else (None, None)
        known = _bounded(exc, line) or _known_mistake(text, problem, line, name)
        if known is not None:
            raise ConfigError(*known[1:], path=lab_path, line=line, col=col, code=known[0]) from None
        hint = say("yamldoc.start_over_move_file") if restart_hint else None
        raise ConfigError.of("config.unreadable.yaml_syntax", path=lab_path, line=line, col=col, name=name, problem=problem, hint=hint) from None
    if not isinstance(doc, dict):
        raise ConfigError.of("config.unreadable.not_a_mapping", path=lab_path, name=name, keys=keys)
    return doc


def _bounded(exc, line: int | None) -> tuple[str, Msg, Msg] | None:
    """(code, what, fix) of a document beyond the loader's bounds."""
    if not isinstance(exc, Excessive):
        return None
    what, fix, _ = words(exc.code, line=line, **exc.values)
    return exc.code, what, fix


def _known_mistake(text: str, problem: str, line: int | None, name: Msg) -> tuple[str, Msg, Msg] | None:
    """(code, what, fix) for the YAML mistakes a hand-written file makes most: a tab in the indentation
    (vi and `cat <<EOF` keep the Tab key's tab), and a second document after `---`."""
    lines = text.split("\n")
    shown = lines[line - 1] if line and line <= len(lines) else ""
    if "\t" in shown[:len(shown) - len(shown.lstrip(" \t"))]:
        code = "yaml.tab_indent"
    elif "another document" in problem or "single document" in problem:
        code = "yaml.several_documents"
    else:
        return None
    what, fix, _ = words(code, line=line, name=name)
    return code, what, fix


def yaml_line(text: str | None, pointer: str) -> int | None:
    """1-based line of a JSON pointer in the YAML text (the deepest part that exists), or None."""
    if not text:
        return None
    try:
        node = compose(text)
    except Excessive:
        return None
    line = None
    for part in [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]:
        if isinstance(node, yaml.MappingNode):
            hit = next(((k, v) for k, v in node.value if k.value == part), None)
            if hit is None:
                break
            line, node = hit[0].start_mark.line + 1, hit[1]
        elif isinstance(node, yaml.SequenceNode) and part.isdigit() and int(part) < len(node.value):
            node = node.value[int(part)]
            line = node.start_mark.line + 1
        else:
            break
    return line
