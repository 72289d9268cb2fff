"""Grading a class: every student's root judged by the engine in check mode (grade, verdicts), `jobs` at a time in
workers forked after the imports (pool), and what comes out of it: the class at a glance (class_view), the feedback
page a student reads (feedback), Gradescope's results.json (gradescope), the LMS's CSV (lms), JUnit XML (junit),
the grading machine's errors (machine), and what the class notebook calls (class_notebook).

May import: every layer up to lab.
"""
