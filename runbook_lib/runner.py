"""`python -m runbook_lib.runner ...`: the fast papermill runner's public entry point (runbook_lib/cli/runner.py)."""

from runbook_lib.cli.runner import main, run_as_program  # noqa: F401 - main: the entry point called in-process

if __name__ == "__main__":
    run_as_program()
