"""The seam between the steps and a container runtime's configuration: what the steps and the engine need of it
(find it, read it as the runtime reads it, plan an edit, judge it, ask the runtime's own binary, restart, remove),
declared once as the ``Consumer`` protocol (protocol.py), and the one registry that names each implementation
(registry.py: one line per consumer, loaded by name). containerd (runbook_lib/containerd/consumer/) is the one
consumer today; docs/ARCHITECTURE.md says how a second one is added.

May import: findings, fs, k8s, cdi (never containerd/ or any other implementation: registry.py names them as
strings, imported only when a run asks for one).
"""
