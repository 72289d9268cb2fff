"""The CDI spec: build a minimal one, read an existing one (strictly, as the CDI library does), validate it
against the upstream schema, and see the other specs in the folders the CDI registry scans.

May import: findings, fs, k8s, containerd (which folders containerd scans for specs).
"""
