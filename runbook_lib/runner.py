"""`python -m runbook_lib.runner ...`: the fast papermill runner's public entry point (runbook_lib/cli/runner.py)."""

import sys

from runbook_lib.cli.runner import main

if __name__ == "__main__":
    sys.exit(main())
