"""The course: what each step teaches (lessons), the catalogue of known mistakes for exercises (mistakes), and
preparing a lab root (init_root), one step's verdict on its own (check_step), and what the student
edition's cells call (student, notebooks/lab.ipynb).

May import: every layer up to evidence.
"""
