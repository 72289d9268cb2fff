"""What a run leaves behind as evidence: the archive of executed notebooks with their manifest, the HTML copy
of a notebook, the step summary of one notebook (show) and across hosts (summary), the labels runs go by, and
many runs at a time (parallel), and why a failed run failed, in its own words (stop_reason).

May import: every layer up to kernel.
"""
