"""The notebook's kernel (app: ipykernel without its debugger, warming up the runbook's imports), started ahead
of papermill (early), and the kernel manager and papermill engine our runs use (manager).

May import: every layer up to notebook (the warm-up imports what the first cell will).
"""
