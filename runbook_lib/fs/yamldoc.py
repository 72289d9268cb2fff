"""Read a YAML document that must be a mapping (the CDI spec, the RuntimeClass), with errors that name the
file, the line and column, and what the document should hold."""

from __future__ import annotations

import yaml

from runbook_lib.findings.errors import ConfigError
from runbook_lib.findings.messages import Msg


# libyaml's loader when PyYAML was built with it (about ten times faster); the same safe subset of YAML.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str):
    return yaml.load(text, Loader=_LOADER)


def load_mapping(text: str, lab_path: str, *, name: Msg, keys: str, restart_hint: bool = False) -> dict:
    """``name`` says what the document is ("CDI 스펙"/"the CDI spec"); ``keys`` lists the keys it needs."""
    try:
        doc = safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        line, col = (mark.line + 1, mark.column + 1) if mark else (None, None)
        known = _known_mistake(text, problem, line, name)
        if known is not None:
            raise ConfigError(*known[1:], path=lab_path, line=line, col=col, code=known[0]) from None
        hint = Msg(" 다시 만들려면 파일을 옮겨 두고 다시 실행하세요.", " To start over, move the file away and run again.") \
            if restart_hint else Msg("", "")
        raise ConfigError(
            Msg(f"YAML 로 읽을 수 없습니다 ({name.ko}): {problem}", f"{name.en} is not readable as YAML: {problem}"),
            Msg(f"들여쓰기와 콜론(:) 뒤의 공백을 확인하세요.{hint.ko}", f"check the indentation and the space after each colon.{hint.en}"),
            path=lab_path, line=line, col=col) from None
    if not isinstance(doc, dict):
        raise ConfigError(Msg(f"매핑(키: 값) 문서가 아닙니다: {name.ko}.", f"{name.en} is not a mapping document."),
                          Msg(f"{keys} 키를 가진 YAML 매핑으로 적으세요.", f"write it as a YAML mapping with {keys}."),
                          path=lab_path)
    return doc


def _known_mistake(text: str, problem: str, line: int | None, name: Msg) -> tuple[str, Msg, Msg] | None:
    """(code, what, fix) for the YAML mistakes a hand-written file makes most: a tab in the indentation
    (vi and `cat <<EOF` keep the Tab key's tab), and a second document after `---`."""
    from runbook_lib.findings.problem import words
    lines = text.split("\n")
    shown = lines[line - 1] if line and line <= len(lines) else ""
    if "\t" in shown[:len(shown) - len(shown.lstrip(" \t"))]:
        code = "yaml.tab_indent"
    elif "another document" in problem or "single document" in problem:
        code = "yaml.several_documents"
    else:
        return None
    what, fix, _ = words(code, line=line, name_ko=name.ko, name_en=name.en)
    return code, what, fix


def yaml_line(text: str | None, pointer: str) -> int | None:
    """1-based line of a JSON pointer in the YAML text (the deepest part that exists), or None."""
    if not text:
        return None
    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
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
