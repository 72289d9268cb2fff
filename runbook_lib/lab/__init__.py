"""The course: what each step teaches (lessons), the catalogue of known mistakes for exercises (mistakes), and
preparing a lab root (init_root).

May import: every layer up to evidence.
"""
