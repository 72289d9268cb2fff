"""The notebook's kernel (app: ipykernel without its debugger, warming up the runbook's imports), started ahead
of papermill (early), the kernel manager and papermill engine our runs use (manager), and a class's kernels:
one process with everything imported (zygote) that a fresh kernel per student is forked from (pool), and the
kernel's shell run in process, without a kernel (inprocess: the zygote's `--in-process` children, one a student).

May import: every layer up to notebook (the warm-up imports what the first cell will).
"""
