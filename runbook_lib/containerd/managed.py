"""Files another tool writes again: the marks tools leave in the containerd config they render (Ansible's
`ansible_managed`, Deckhouse's bashible, GKE's boot script, Bottlerocket's renderer). An edit there is undone by
the tool's next run without a word, so the run warns, naming the tool and where the change lasts instead (its
template, its settings, a drop-in). Recognised before any rule about the file's contents (owner.py's runtimes of
another owner likewise): what the tool wrote is not a student's typo.

A file marked DO NOT EDIT is distro/detect.py's (a refusal); these marks say whose the file is, not that it must
not be edited, so they are a warning.
"""

from __future__ import annotations

import re

from runbook_lib.findings.catalog import say
from runbook_lib.findings.problem import Problem

# (tool, the mark in the file's text, case-insensitive). The catalog's owner.managed.<tool> names the tool and its
# durable alternative.
MARKS = (
    ("ansible", re.compile(r"Ansible managed", re.I)),
    ("deckhouse", re.compile(r"bashible", re.I)),
    ("gke", re.compile(r"configure-helper|Kubernetes doesn't use containerd restart manager", re.I)),
    ("bottlerocket", re.compile(r"bottlerocket|\"nvidia-oci\"|'nvidia-oci'", re.I)),
)
OS_RELEASE = "/etc/os-release"
_OS_IDS = {"bottlerocket": "bottlerocket"}  # /etc/os-release ID= of a system that renders its containerd config


def tool_of(text: str) -> tuple[str, int, str] | None:
    """(tool, 1-based line, the line) of the first mark another tool left in ``text``, or None."""
    for n, line in enumerate(text.splitlines(), 1):
        for tool, mark in MARKS:
            if mark.search(line):
                return tool, n, line.strip()
    return None


def os_tool(os_release: str | None) -> str | None:
    """The tool that renders containerd's config on this system, from its /etc/os-release (Bottlerocket)."""
    m = re.search(r'^ID="?([A-Za-z0-9_.-]+)"?\s*$', os_release or "", re.M)
    return _OS_IDS.get(m.group(1)) if m else None


def managed_warnings(files, os_release: str | None = None) -> list[Problem]:
    """One warning for each file of the effective config another tool rewrites (``files``: TomlFile-like, with
    ``lab_path`` and ``text``), the main file first."""
    out = []
    for i, f in enumerate(files):
        found = tool_of(f.text)
        system = os_tool(os_release) if i == 0 else None
        if found is None and system is not None:
            found = (system, None, OS_RELEASE)
        if found is None:
            continue
        tool, line, mark = found
        out.append(Problem.of("containerd.managed_file", f.lab_path, line, file=f.lab_path, mark=mark,
                              tool=tool, who=say(f"owner.managed.{tool}"), instead=say(f"owner.managed.{tool}.instead")))
    return out
