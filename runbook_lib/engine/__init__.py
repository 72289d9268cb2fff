"""The run: the parameters and their validation (params), the run context every step receives, the one plan
of every step before any write and the commit after it (run), the distribution route a run configures (route),
containerd's own reading of the plan before any write (guard), and the one result type every view is built from
(result).

May import: findings, fs, k8s, containerd, cdi, steps.
"""
