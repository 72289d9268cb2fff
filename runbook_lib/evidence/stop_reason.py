"""Why a run failed, in the run's own words, read from its executed notebook: what every command prints last
(`make run`, `python -m runbook_lib.runner`, `runbook run`), instead of papermill's exception name or a
traceback.

The status box (runbook_lib/notebook/views.py) says which step stopped the run and why, in both languages; a run
that stopped before it had one (a parameter refused by the validation cell) stopped with the runbook's own
error, whose text is already the bilingual reason and its fix.
"""

from __future__ import annotations

import re

from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import bilingual

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _outputs(nb: dict):
    for cell in nb.get("cells", []):
        yield from cell.get("outputs", []) or []


def reason(nb: dict, shown: str = "") -> list[str]:
    """The lines that say why the run failed (Korean, then English), or [] when it did not fail. ``shown``: what
    the terminal already says above (the failed step's finding under its line): said again here only by
    reference to that step."""
    from runbook_lib.engine.result import read_record
    from runbook_lib.notebook import STATUS_MIME

    status = None
    for out in _outputs(nb):
        data = out.get("data") or {}
        if STATUS_MIME in data:
            status = read_record(data[STATUS_MIME])
    if status and status.get("state") == "failed":
        message = status.get("message") or {}
        lines = [message.get("ko", ""), message.get("en", "")]
        failed = status.get("failed") or {}
        said = failed.get("message") or {}
        if said.get("en") and said["en"] in shown and said.get("ko", "") in shown:  # said under the step above
            where = say("stop_reason.under_step", step=failed.get("step"))
            return [line.replace(said[lang], getattr(where, lang)) for line, lang in zip(lines, ("ko", "en"))]
        if said.get("en") and said["en"] not in lines[1]:  # the failed step's own message, when the box's is general
            lines += [f"  {failed.get('step')}. {said.get('ko', '')}", f"  {failed.get('step')}. {said['en']}"]
        return lines
    for out in _outputs(nb):
        if out.get("output_type") == "error":
            text = [ANSI.sub("", line) for line in "\n".join(out.get("traceback") or []).split("\n")]
            if any(line.startswith("Traceback") or line.startswith("----") for line in text):
                return [f"{out.get('ename')}: {out.get('evalue')}"]  # not the runbook's: no words of its own
            return [line for line in text if line.strip()]
    return []


def lines(notebook_path, nb: dict | None, shown: str = "") -> list[str]:
    """The last lines of a failed run: why (what ``shown`` already says, by reference), then where its notebook is."""
    import os

    why = reason(nb, shown) if nb is not None else []
    out = [f"{bilingual(say('label.why_it_failed'))}:"] + [f"  {line}" for line in why] if why else []
    return out + [f"{bilingual(say('label.notebook'))}: {os.path.abspath(notebook_path)}"]


def explain_missing(exc: BaseException) -> str | None:
    """For jupyter_client's NoSuchKernel (which names the kernel, not the fix): what to tell the user, in both
    languages, with the fix. None for any other error."""
    from jupyter_client.kernelspec import NoSuchKernel

    if not isinstance(exc, NoSuchKernel):
        return None
    import sys

    from runbook_lib.findings.problem import Problem
    from runbook_lib.findings.text import text

    return text(Problem.of("kernel.missing", kernel=exc.name or str(exc), python=sys.executable).as_dict())
