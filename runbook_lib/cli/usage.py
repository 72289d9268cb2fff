"""argparse's own errors (an argument missing, unknown or malformed) in both languages, each with its fix.

argparse words them in English only, with Python's quotes around values; `_Parser.error` (cli/main.py) shows
them through this instead: the usage line, then what is wrong and what to give, in Korean and in English. A
message argparse words some other way is still shown whole, after a sentence that says where to look.
"""

from __future__ import annotations

import re

from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import Msg

# argparse's messages (Python 3.11 to 3.13), each with the catalog entry that says it in both languages
_MESSAGES = [
    (re.compile(r"the following arguments are required: (?P<names>.+)"), "cli.usage.missing"),
    (re.compile(r"unrecognized arguments: (?P<args>.+)"), "cli.usage.unrecognized"),
    (re.compile(r"argument (?P<name>\S+): invalid choice: (?P<value>.*?) \(choose from (?P<choices>.+)\)"),
     "cli.usage.choice"),
    (re.compile(r"argument (?P<name>\S+): invalid int value: (?P<value>.*)"), "cli.usage.whole_number"),
    (re.compile(r"argument (?P<name>\S+): expected one argument"), "cli.usage.value_missing"),
    (re.compile(r"argument (?P<name>\S+): expected (?P<n>\d+) arguments"), "cli.usage.values_missing"),
]


def usage_error(message: str, prog: str) -> Msg:
    """argparse's ``message`` about ``prog``'s command line, said in both languages with its fix."""
    for pattern, code in _MESSAGES:
        m = pattern.fullmatch(message.strip())
        if m:
            values = {k: _plain(v) for k, v in m.groupdict().items()}
            if "names" in values:
                values["names"] = Msg.join(", ", [_named(n) for n in _items(m["names"])])
            if "choices" in values:
                values["choices"] = ", ".join(_items(m["choices"]))
            if code == "cli.usage.choice" and m["name"].startswith("{"):  # the sub-command's place
                code = "cli.usage.no_such_command"
            return say(code, prog=prog, **values)
    return say("cli.usage.other", prog=prog, message=message.strip())


def _items(listed: str) -> list[str]:
    """A list argparse joined with ", ", each item without the quotes Python's repr put around it."""
    return [_plain(item) for item in listed.split(", ")]


def _plain(value: str) -> str:
    """A value as typed: argparse shows it as Python's repr, 'aply' (a value with a quote in it, "it's")."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _named(name: str) -> Msg:
    """An argument as the usage line names it; the sub-command's place ({run,grade,...}) as the word command."""
    if name.startswith("{") and name.endswith("}"):
        return say("label.command", choices=", ".join(name[1:-1].split(",")))
    return Msg.verbatim(name)
