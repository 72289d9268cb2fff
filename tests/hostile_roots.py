"""The student roots of issue 26, as a careless or a mischievous student leaves them: each a finished lab
(`runbook lab-init --finished`) with one hostile file put in, and the finding its grading must end in."""
from __future__ import annotations

import os
from pathlib import Path

from runbook_lib.lab.init_root import finished_lab

CONFIG = "etc/containerd/config.toml"
SPEC = "etc/cdi/nvidia.yaml"
REPORT = "root/toolkit/report.txt"
GIB = 1024 ** 3

LAUGHS = "".join(
    [f'l{i}: &l{i} [{", ".join([f"*l{i - 1}"] * 9)}]\n' if i else 'l0: &l0 ["lol", "lol", "lol", "lol", "lol"]\n'
     for i in range(9)])


def billion_laughs(root: Path) -> None:
    """Nine levels of nine aliases in the CDI spec: twenty lines, a billion strings once expanded."""
    spec = root / SPEC
    spec.write_text(spec.read_text() + LAUGHS + "laughs: *l8\n")


def sparse_report(root: Path, size: int = 3 * GIB) -> None:
    """report.txt as a 3 GB sparse file: a few blocks on disk, 3 GB of zeros to whoever reads it."""
    path = root / REPORT
    with open(path, "r+b") as f:
        f.truncate(size)


def long_comment(root: Path, mib: int) -> None:
    """A comment line of ``mib`` MiB at the end of config.toml (a paste gone wrong)."""
    with open(root / CONFIG, "ab") as f:
        f.write(b"# " + b"x" * (mib * 1024 * 1024) + b"\n")


def many_imports(root: Path, count: int = 20_000) -> None:
    """An imports glob over a folder of ``count`` empty drop-ins."""
    folder = root / "etc/containerd/conf.d"
    folder.mkdir(exist_ok=True)
    for i in range(count):
        (folder / f"{i:05d}.toml").write_bytes(b"")
    path = root / CONFIG
    path.write_text('imports = ["/etc/containerd/conf.d/*.toml"]\n' + path.read_text())


def deep_array(root: Path, depth: int = 50_000) -> None:
    with open(root / CONFIG, "a") as f:
        f.write("deep = " + "[" * depth + "]" * depth + "\n")


def big_spec(root: Path, devices: int = 4300) -> None:
    """A CDI spec just under its size limit (about 490 KB): within every bound, and half a minute to judge."""
    spec = root / SPEC
    extra = "".join(f"  - name: gpu{i}\n    containerEdits:\n      deviceNodes:\n        - path: /dev/nvidia{i % 8}\n"
                    f"      env: [A{i}=1, B{i}=2]\n" for i in range(devices))
    spec.write_text(spec.read_text().replace("devices:\n", "devices:\n" + extra, 1))


def config_loop(root: Path) -> None:
    path = root / CONFIG
    path.unlink()
    os.symlink("config.toml", path)


# name -> (how the root is made, the finding code its grading ends in)
HOSTILE = {
    "laughs": (billion_laughs, "yaml.too_many_aliases"),
    "sparse-report": (sparse_report, "read.too_large"),
    "comment-200m": (lambda r: (long_comment(r, 200), sparse_report(r)), "read.too_large"),
    "comment-50m": (lambda r: long_comment(r, 50), "read.too_large"),
    "imports-20000": (many_imports, "read.too_many_files"),
    "deep-array": (deep_array, "input.too_deep"),
    "config-loop": (config_loop, "path.outside_root.symbolic_links_loop"),  # a link loop: its own code in the family
}


def make(folder: Path, name: str) -> Path:
    root = folder / name
    finished_lab(str(root))
    if name == "big-spec":
        big_spec(root)
    elif name != "correct":
        HOSTILE[name][0](root)
    return root
