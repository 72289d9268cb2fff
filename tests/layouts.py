"""Helpers for the config-version and layout tests: a root holding a given config, the eight steps run through
the same Runbook the notebook uses, and containerd's own reading of the result."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path


from grading_helpers import GOOD
from helpers import CONFORMANCE, FIXTURES
from runbook_lib.containerd.effective import load_effective
from runbook_lib.containerd.versions import runtimes_path
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run

CASES = sorted(p for p in CONFORMANCE.iterdir() if (p / "expected.json").is_file())
CONFIG = "etc/containerd/config.toml"
DROPIN = "etc/containerd/conf.d/99-nvidia.toml"

# The containerd fixtures (tests/fixtures/containerd/) and the version containerd reads each as.
FIXTURE_VERSIONS = {
    "containerd-1.6.20-default.toml": 2,
    "containerd-2.0-docs-config-v3.toml": 3,
    "v1-no-version-line.toml": 1,
}


def make_root(tmp_path: Path, config: bytes | Path, files: dict[str, bytes | str] | None = None) -> Path:
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    data = config.read_bytes() if isinstance(config, Path) else config
    (root / CONFIG).write_bytes(data)
    (root / CONFIG).chmod(0o644)  # a node's config is writable, whatever the fixture's mode
    for rel, content in (files or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(content.encode() if isinstance(content, str) else content)
    return root


def run_steps(root: Path, steps=range(1, 9), **params) -> Run:
    rb = Run(validate(root=str(root), **params)).start()
    try:
        rb.preflight()
        for step in rb.steps:
            if step.NUMBER in steps:
                rb.run(step)
    finally:
        rb.finish()
    return rb


def effective(root: Path):
    from runbook_lib.fs.target import Target
    return load_effective(Target(str(root)), "/" + CONFIG)


def runtimes(root: Path) -> dict:
    eff = effective(root)
    node = eff.data
    for part in runtimes_path(eff.version):
        node = node.get(part, {})
    return node


def containerd_sees(root: Path, runtime: str = "nvidia") -> dict:
    """What containerd 1.6 itself reads (imports resolved under the root); skips without containerd or root."""
    import sys
    sys.path.insert(0, str(Path(__file__).parent / "real"))
    from realenv import need_program, need_root
    from runbook_lib.containerd.verify import containerd_reading
    binary = need_program("containerd")
    need_root()
    return containerd_reading(binary, root / CONFIG, root, runtime)


def toml(root: Path, rel: str) -> dict:
    return tomllib.loads((root / rel).read_text())


def fixture(name: str) -> Path:
    return FIXTURES / name


# Every layout the runbook knows with default_runtime_name taken out (tests/containerd/test_default_rule.py,
# tests/real/test_real_default_without_key.py)
CONTAINERD_DEFAULT = "runc"  # containerd's built-in default_runtime_name (1.6 to 2.x)
CONFIGS = {
    "lab (version 2)": GOOD,
    "containerd 1.6 defaults (version 2)": fixture("containerd-1.6.20-default.toml"),
    "containerd 2.0 docs (version 3)": fixture("containerd-2.0-docs-config-v3.toml"),
    "no version line (version 1)": fixture("v1-no-version-line.toml"),
}
KEY_LINE = re.compile(rb"^[ \t]*default_runtime_name[ \t]*=.*\n", re.MULTILINE)


def without_default_name(path) -> bytes:
    data = path.read_bytes()
    return KEY_LINE.sub(b"", data)
