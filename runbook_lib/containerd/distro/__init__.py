"""The Kubernetes distributions that run containerd under a root (k3s, RKE2, microk8s, k0s): which one it is,
the file the runbook really edits there (a template or a drop-in folder), how the distribution renders it, and
the edit and its removal.

May import: findings, fs, k8s and the rest of containerd.
"""
