"""Judge one real-world config (tests/fixtures/realworld/<name>/, the node's files under a root) by one real
containerd: what containerd reads before the run, what the runbook's apply does, what containerd reads after
it, and whether mode=remove gives every file back byte for byte.

The invariant the runbook promises, asked of containerd itself (`config dump`): the effective config after
apply differs from the one before only by the runtime tables the run adds (nvidia, or a table it already had)
and the CDI settings; the default runtime, every other runtime and every other plugin are identical. The
verdict is one short line per stage, so that tools/realworld_conformance.py writes docs/CONFORMANCE.md's table
from real runs and tests/real/test_real_realworld.py compares every cell with the committed expectations.
"""
from __future__ import annotations

import json
import shutil
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path

from runbook_lib.containerd.invariant import changed_beside
from runbook_lib.containerd.verify import ContainerdRejected, containerd_dump
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run

REALWORLD = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "realworld"
EXPECTED = REALWORLD / "expected.json"
CONFIG = "etc/containerd/config.toml"
ADDED_RUNTIMES = ("nvidia",)
BINARY = "/usr/bin/nvidia-container-runtime"


def fixtures() -> list[str]:
    return sorted(p.name for p in REALWORLD.iterdir() if p.is_dir())


def expected() -> dict:
    return json.loads(EXPECTED.read_text())


@dataclass
class Verdict:
    before: str    # what containerd reads of the node's own files
    apply: str     # what the runbook's apply did
    after: str     # what containerd reads after it, against the invariant
    remove: str    # whether mode=remove gave back every file byte for byte


def _files(root: Path) -> dict[str, bytes]:
    """The node's files, without the runbook's own bookkeeping (backups, the run lock)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and ".runbook-backup-" not in p.name and not str(p).endswith("run/lock/nvidia-runtime-runbook.lock")}


RANCHER = "var/lib/rancher/{}/agent/etc/containerd"
TEMPLATES = ("config-v3.toml.tmpl", "config.toml.tmpl")


def _read_by_containerd(root: Path) -> Path:
    """The file containerd is started with: k3s's and RKE2's generated one on their nodes, else config.toml."""
    for distro in ("k3s", "rke2"):
        generated = root / RANCHER.format(distro) / "config.toml"
        if generated.is_file():
            return generated
    return root / CONFIG


def _restart_distribution(root: Path, generated_original: bytes) -> None:
    """What k3s/RKE2 do at their next start: config.toml from the template (rendered with the stock config as
    base, as distro/render.py reproduces), or the stock config again when there is no template."""
    from runbook_lib.containerd.distro.render import render_rancher_template
    generated = _read_by_containerd(root)
    if generated == root / CONFIG:
        return
    template = next((generated.parent / t for t in TEMPLATES if (generated.parent / t).is_file()), None)
    stock = generated_original.decode()
    generated.write_text(render_rancher_template(template.read_text(), stock) if template else stock)


def _dump(containerd: str, root: Path) -> dict | str:
    try:
        return tomllib.loads(containerd_dump(containerd, _read_by_containerd(root), root))
    except ContainerdRejected as exc:
        return exc.said


def _cri_runtime_plugin(dump: dict) -> dict:
    plugins = dump.get("plugins", {})
    return plugins.get("io.containerd.cri.v1.runtime") or plugins.get("io.containerd.grpc.v1.cri") or {}


def _runtimes(dump: dict) -> dict:
    return _cri_runtime_plugin(dump).get("containerd", {}).get("runtimes", {})


def _default(dump: dict) -> str:
    return _cri_runtime_plugin(dump).get("containerd", {}).get("default_runtime_name", "")


def _describe(dump: dict | str) -> str:
    if isinstance(dump, str):
        return f"rejects the file: {dump}"
    names = ", ".join(sorted(_runtimes(dump))) or "-"
    return f"runtimes {names}; default {_default(dump)}"


# a GPU node's own CDI spec, where the toolkit's nvidia-cdi-refresh leaves it: the node profile judges it there
# and makes none (without one, it would ask the node's nvidia-ctk, which these fixtures do not have)
NODE_SPEC = ('cdiVersion: "0.5.0"\nkind: nvidia.com/gpu\ndevices:\n  - name: all\n    containerEdits:\n'
             '      deviceNodes:\n        - path: /dev/nvidia0\n')


def node_spec(root: Path) -> None:
    """The node's spec, and the GPU it names (a file stands in for /dev/nvidia0): step 6 looks up every path a
    node's spec names under the root (issue 51)."""
    if not any((root / d / "nvidia.yaml").exists() for d in ("etc/cdi", "var/run/cdi")):
        (root / "var/run/cdi").mkdir(parents=True, exist_ok=True)
        (root / "var/run/cdi/nvidia.yaml").write_text(NODE_SPEC)
        (root / "dev").mkdir(exist_ok=True)
        (root / "dev/nvidia0").touch()


def _run(root: Path, containerd: str, mode: str) -> Run:
    # the node profile: these are real nodes' configs, judged as auto judges them on a node (root /): their
    # default runtime kept, another owner's runtime theirs; layout inplace, the table's column (a drop-in where
    # the config imports conf.d is tests/real/test_real_node_profile.py's)
    rb = Run(validate(root=str(root), mode=mode, containerd_bin=containerd, profile="node", layout="inplace")).start()
    try:
        rb.run_all()
    finally:
        rb.finish()
    return rb


def _apply_words(rb: Run) -> str:
    refused = [p.code for _, p in rb.refusals()]
    if refused:
        return "refused: " + ", ".join(refused)
    failed = sorted({p.code for r in rb.results.values() for p in r.problems if p.is_error})
    return "applied" if not failed else "applied, failed: " + ", ".join(failed)


def judge(name: str, containerd: str, work: Path) -> Verdict:
    root = work / "root"
    shutil.copytree(REALWORLD / name, root)
    node_spec(root)
    original = _files(root)
    generated = _read_by_containerd(root).read_bytes()
    before = _dump(containerd, root)
    rb = _run(root, containerd, "apply")
    applied = _files(root)
    _restart_distribution(root, generated)
    apply = _apply_words(rb)
    if apply.startswith("refused"):
        changed = sorted(k for k in set(original) | set(applied) if original.get(k) != applied.get(k))
        after = "nothing written" if not changed else "WROTE WHILE REFUSING: " + ", ".join(changed)
    else:
        after = _judge_after(before, _dump(containerd, root))
    _run(root, containerd, "remove")
    _restart_distribution(root, generated)
    left = _files(root)
    differs = sorted(k for k in set(original) | set(left) if original.get(k) != left.get(k))
    remove = "every file back byte for byte" if not differs else "differs: " + ", ".join(differs)
    return Verdict(_describe(before), apply, after, remove)


def _judge_after(before: dict | str, after: dict | str) -> str:
    if isinstance(after, str):
        return f"REJECTED AFTER THE RUN: {after}"
    nvidia = _runtimes(after).get("nvidia") or {}
    if (nvidia.get("options") or {}).get("BinaryName") != BINARY:
        return "NO NVIDIA RUNTIME READ"
    if isinstance(before, str):
        return "nvidia read (containerd rejected the file before)"
    changed = changed_beside(before, after, ADDED_RUNTIMES)
    if changed:
        return "CHANGED BESIDE NVIDIA: " + ", ".join(changed[:6])
    return "nvidia read; everything else identical"


def as_dict(verdict: Verdict) -> dict:
    return asdict(verdict)
