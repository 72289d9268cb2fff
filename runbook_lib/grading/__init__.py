"""Grading a class: every student's root in check mode (grade), each notebook run in a kernel of its own (runner),
and what comes out of it: the class at a glance
(class_view), the feedback page a student reads (feedback), Gradescope's results.json (gradescope), JUnit XML
(junit), and what the class notebook calls (class_notebook).

May import: every layer up to lab.
"""
