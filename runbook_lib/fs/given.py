"""A file a person names on the command line (`-f PARAMS.yaml`, `--points COURSE.yaml`), read as text within the
bounded reader's limit, and each way it cannot be taken said in both languages with the fix: not there, a folder,
not UTF-8, too large, unreadable, or not YAML (with its line and column). Never Python's English OSError with a
repr, nor libyaml's message of several lines. Raised as ValueError; the command turns it into its refusal."""

from __future__ import annotations

from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import Msg


def read_given(path: str, name: Msg, example: str) -> str:
    """The text of the file at ``path``; ``name`` says what it is ("점수 파일"/"points file"), ``example`` shows
    how to name one (-f params/node.yaml)."""
    from runbook_lib.fs.bounded_read import FileTooLarge, read

    values = {"file": path, "name": name, "example": example}
    try:
        raw = read(path, "params")
    except IsADirectoryError:
        raise ValueError(str(say("given.folder", **values))) from None
    except FileTooLarge as exc:  # the fix is another file, not the bounded read's "make it again"
        raise ValueError(str(say("given.too_large", size=exc.values["size"], limit=exc.values["limit"],
                                 **values))) from None
    except OSError as exc:
        raise ValueError(str(say("given.unreadable", strerror=exc.strerror or type(exc).__name__,
                                 **values))) from None
    if raw is None:
        raise ValueError(str(say("given.missing", **values)))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(str(say("given.not_utf8", at=exc.start + 1, **values))) from None


def yaml_error(exc, path: str, name: Msg) -> ValueError:
    """A YAML syntax error in the file, where it is in the file's own lines and libyaml's words for what it
    expected (its first line: the rest repeats the place)."""
    mark = getattr(exc, "problem_mark", None)
    line, col = (mark.line + 1, mark.column + 1) if mark else ("?", "?")
    problem = getattr(exc, "problem", None) or str(exc).split("\n")[0]
    return ValueError(str(say("given.yaml", file=path, name=name, line=line, col=col, problem=problem)))
