"""A pod through the handler (the pod step, runbook_lib/steps/pod.py): `sandbox` on a throw-away containerd
(sandbox.py), `node` on the node's running containerd over CRI (node.py) with its CDI probe (cdi_probe.py), their facts and the one verdict on
them (facts.py), how the notebook shows them (show.py) and the cgroups a pod may leave (cleanup.py)."""
