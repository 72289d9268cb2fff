"""The run: the parameters and their validation (params), the run context every step receives, the one plan
of every step before any write and the commit after it (run), the distribution route a run configures (route),
and the one result type every view is built from (result).

May import: findings, fs, k8s, cdi, consumer, steps (never containerd/ or another consumer's package: the run
gets its consumer by name from runbook_lib/consumer/registry.py).
"""
