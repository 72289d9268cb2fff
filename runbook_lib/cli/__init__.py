"""The `runbook` command (main, grade, check), its refusal (refused), and the fast papermill runner behind
`python -m runbook_lib.runner` (runner). The top layer.

May import: every layer.
"""
