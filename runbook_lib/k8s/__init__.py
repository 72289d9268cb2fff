"""Kubernetes: its name rules (names) and the RuntimeClass that lets GPU pods opt in (runtimeclass).

May import: findings, fs.
"""
