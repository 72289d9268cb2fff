"""The engine's rules (runbook_lib/engine/run.py) that mutation testing (`make mutate`) found no test for."""
