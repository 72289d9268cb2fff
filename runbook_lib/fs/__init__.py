"""The target root and the files under it: resolving lab paths as a chroot would (target), the one way a
file changes (safe_write: plan, diff, backup, atomic write), the per-root lock, what even root cannot write
(writable), and reading a YAML mapping with errors that name the line (yamldoc).

May import: findings.
"""
