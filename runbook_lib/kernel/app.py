"""A shim until the grading rework (branch g52) lands, then deleted: tests/student_kernel.py and the grader's
remaining modules read the notebook's kernel name here. The notebooks run in ipykernel's stock kernel."""

NAME = "python3"
