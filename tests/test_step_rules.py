"""The steps' rules (runbook_lib/steps/) that mutation testing (`make mutate`) found no test for."""
