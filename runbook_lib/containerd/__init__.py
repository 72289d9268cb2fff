"""containerd: config versions and where each keeps the CRI runtimes, reading a config and its imports as
containerd merges them, the text edits that add a runtime while keeping every other byte, diagnosis of what
is wrong, and asking a real containerd (`config dump`, restart). distro/ holds the k3s, RKE2, microk8s and k0s
routes.

May import: findings, fs, k8s.
"""
