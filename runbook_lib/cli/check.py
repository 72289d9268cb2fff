"""`runbook check --step N ROOT`: one step's verdict on a student's root, as `rb.check_step(N)` gives it in the
student edition and `runbook grade` in full (runbook_lib/lab/check_step.py). Nothing is written under ROOT, and no
notebook runs: it answers in the time a student waits for a command.

Exit codes: 0 the step passed (or was skipped with its reason), 1 it failed or is blocked by an earlier step, 2
the request was refused (no such folder, no such step, a bad parameter).
"""

from __future__ import annotations

import os


def cmd_check(args) -> int:
    from runbook_lib.lab.check_step import check_step
    from runbook_lib.findings.errors import RunbookError
    from runbook_lib.cli.refused import EXIT_FAILED, EXIT_OK, Refused
    from runbook_lib.engine.result import BLOCKED, FAILED
    from runbook_lib.findings.catalog import say

    if not os.path.isdir(args.root):
        raise Refused(str(say("check.no_such_lab_folder", root=args.root)))
    given = dict(args.params)
    if "root" in given:  # it would judge another root than ROOT, without a word
        raise Refused(str(say("cli.check.root_as_argument")))
    if given.get("mode", "check") != "check":  # it would be checked anyway: said, not ignored
        raise Refused(str(say("cli.check.check_mode_only", mode=given["mode"])))
    params = {"root": os.path.abspath(args.root)}
    if args.params:  # papermill only when there is a -p to read: a bare check answers as fast as before
        from runbook_lib.cli.args import as_papermill_reads
        for name, value in args.params:
            params[name] = as_papermill_reads(value)  # as `runbook grade -p` and papermill read it
    try:
        result = check_step(params, args.step)
    except RunbookError as exc:  # an unknown step or parameter: its words and fix, one finding
        from runbook_lib.findings.problem import Problem
        from runbook_lib.findings.text import lines as finding_lines
        raise Refused("\n".join(finding_lines(Problem.from_error(exc)))) from None
    print(result.text())
    return EXIT_FAILED if result.status in (FAILED, BLOCKED) else EXIT_OK  # blocked: not passing either
