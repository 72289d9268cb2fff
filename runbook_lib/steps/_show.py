"""What a person sees read back from disk for a step (the evidence in the step's output)."""

from __future__ import annotations

from runbook_lib.containerd.versions import runtime_table
from runbook_lib.fs.tomlvalue import value
from runbook_lib.findings.catalog import say
from runbook_lib.findings.errors import RunbookError
from runbook_lib.findings.messages import bilingual


def show_table(table: dict, prefix: str = "") -> str:
    lines = []
    for k, v in table.items():
        lines.append(show_table(v, f"{prefix}{k}.") if isinstance(v, dict) else f"{prefix}{k} = {value(v)}")
    return "\n".join(line for line in lines if line)


def runtime_evidence(run) -> dict[str, str]:
    try:
        eff = run.effective()
    except RunbookError:
        return {}
    table, _ = runtime_table(eff.data, eff.version, run.p.runtime_name)
    return {f"{run.p.config_path} (tomllib)": show_table(table)} if isinstance(table, dict) else {}


def file_evidence(run, name: str) -> dict[str, str]:
    try:
        text = run.read_text(run.tk(name))
    except RunbookError:  # a folder (or a FIFO) where the file should be: the step's verdict says so
        return {}
    if text is None:
        return {}
    # a node's facts are only evidence: named for what they are, never at a path
    return {run.tk(name) if run.answer_files else bilingual(say(f"evidence.node.{name}")): text}
