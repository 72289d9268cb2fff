"""The Kubernetes path: manifests validated with kubernetes-validate, and consistent with the image and CLI."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from fleet_helpers import REPO

K8S = REPO / "deploy" / "kubernetes"
MANIFESTS = sorted(K8S.glob("*.yaml"))
# node-feature-discovery's PCI vendor label, set without the GPU Operator (its nvidia.com/gpu.present is not)
GPU_LABEL = "feature.node.kubernetes.io/pci-10de.present"


def validate(*files: Path, version: str = "1.30.0") -> subprocess.CompletedProcess:
    exe = shutil.which("kubernetes-validate", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.fail("kubernetes-validate is missing: pip install -e '.[test]'")
    return subprocess.run([exe, "--strict", "-k", version, *map(str, files)], capture_output=True, text=True)


def shipped_versions() -> list[str]:
    """Every Kubernetes version whose schemas the installed kubernetes-validate ships (1.25 to 1.37 today)."""
    from kubernetes_validate.utils import all_versions

    return sorted(set(all_versions()), key=lambda v: tuple(map(int, v.split("."))))


def workloads():
    for path in MANIFESTS:
        doc = yaml.safe_load(path.read_text())
        if doc["kind"] in ("DaemonSet", "Job"):
            yield path.name, doc


@pytest.fixture(scope="module")
def strict_results():
    """{version: {manifest: None, or kubernetes-validate's error}} for every shipped version, in one pass: each
    version's schemas are read once for all the manifests (the CLI, once per version, read them again for each
    file in a new process: 36 s of the fleet tests). The CLI itself is still run in
    test_the_validator_rejects_a_broken_manifest."""
    import functools

    from kubernetes_validate import utils

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(utils, "schema_contents", functools.lru_cache(maxsize=None)(utils.schema_contents))
        results = {}
        for version in shipped_versions():
            results[version] = {}
            for path in MANIFESTS:
                try:
                    utils.validate(yaml.safe_load(path.read_text()), version, strict=True)
                    results[version][path.name] = None
                except utils.ValidationError as exc:
                    results[version][path.name] = str(exc)
    return results


def test_every_manifest_passes_strict_validation(strict_results):
    assert {p.name for p in MANIFESTS} == {"namespace.yaml", "daemonset.yaml", "job.yaml"}
    assert strict_results["1.30.0"] == {p.name: None for p in MANIFESTS}


def test_every_manifest_passes_strict_validation_for_every_shipped_kubernetes_version(strict_results):
    """Clusters of a course or a fleet run anything from an old LTS to the newest release."""
    failed = {v: errors for v, errors in strict_results.items() if any(errors.values())}
    assert len(strict_results) > 1 and failed == {}, failed


def test_the_validator_rejects_a_broken_manifest(tmp_path):
    doc = yaml.safe_load((K8S / "daemonset.yaml").read_text())
    doc["spec"]["template"]["spec"]["initContainers"][0]["volumeMount"] = []  # a typo'd field
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(doc))
    assert validate(bad).returncode != 0
    from kubernetes_validate import utils  # the same check, as strict_results makes it
    with pytest.raises(utils.ValidationError, match="volumeMount"):
        utils.validate(doc, "1.30.0", strict=True)


@pytest.mark.parametrize("name,doc", list(workloads()))
def test_runs_on_gpu_nodes_with_the_host_root_at_host(name, doc):
    from runbook_lib.cli.main import build_parser

    spec = doc["spec"]["template"]["spec"]
    assert spec["nodeSelector"][GPU_LABEL] == "true"
    host_vol = {v["name"]: v for v in spec["volumes"]}
    (runbook,) = [c for c in spec.get("initContainers", []) + spec["containers"] if c["name"] == "runbook"]
    mounts = {m["mountPath"]: m["name"] for m in runbook["volumeMounts"]}
    assert host_vol[mounts["/host"]]["hostPath"]["path"] == "/"
    # the arguments are ones the real CLI accepts, with root=/host and the archive on the node
    args = build_parser().parse_args(runbook["args"])
    assert args.command == "run" and args.root == "/host"
    assert args.archive.startswith("/host/") and args.label == "$(NODE_NAME)"
    assert args.smoke == "off"  # the pod through the handler is one switch away (docs/FLEET.md)
    params = dict(args.params)
    assert params["profile"] == "node"  # /host is the node's own /: a node, never the lab (engine/profile.py)
    assert params["nvidia_ctk"].startswith("/host/")
    assert "nvidia.com/gpu.present" not in (K8S / name).read_text()  # the GPU Operator's label: none without it
    env = {e["name"]: e for e in runbook["env"]}
    assert env["NODE_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "spec.nodeName"
    images = {c["image"] for c in spec.get("initContainers", []) + spec["containers"]}
    assert images == {"registry.local/nvidia-runtime-runbook:0.1.0"}


def test_daemonset_applies_and_job_checks():
    docs = dict(workloads())
    ds = docs["daemonset.yaml"]["spec"]["template"]["spec"]["initContainers"][0]["args"]
    job = docs["job.yaml"]["spec"]["template"]["spec"]["containers"][0]["args"]
    assert ds[ds.index("--mode") + 1] == "apply" and job[job.index("--mode") + 1] == "check"
    assert docs["job.yaml"]["spec"]["template"]["spec"]["restartPolicy"] == "Never"


def test_dockerfile_copies_what_exists_and_runs_the_runbook_command():
    text = (K8S / "Dockerfile").read_text()
    sources = []
    for line in text.splitlines():
        if line.startswith("COPY ") and "--from=" not in line:
            sources += line.split()[1:-1]
    assert sources and all((REPO / s).exists() for s in sources), sources
    assert 'ENTRYPOINT ["runbook"]' in text
    import tomllib

    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["runbook"] == "runbook_lib.cli.main:main"
    assert "--no-index" in text  # the final image installs only what the build stage made
