"""The node profile through the operator's own command, plain `papermill notebooks/run.ipynb` (issue 39), with
the real programs: nvidia-ctk (scripts/install-nvidia-ctk.sh) makes the node's CDI spec, podman (Debian's, a
real CDI consumer) puts that spec's device nodes and mounts into a container, and containerd 2.2/2.3/2.4 read
the drop-in the run writes where their own default config imports conf.d.

No GPU here: the node root holds four NVIDIA device nodes made with mknod (character devices 195:0-3, as the
driver makes them, and nvidiactl 195:255), /dev/null as every node has it (the spec mounts it), and a driver's
files laid out as the driver installs them (libcuda, libnvidia-ml with their soname links, nvidia-smi);
nvidia-ctk reads them in its CSV mode (the mode of a node without the NVML driver library, as on Jetson), given
through cdi_generate_args.

The spec is judged as the node reads it (issue 51): the root is the node's / mounted here, so the spec the run
writes names the node's own /dev/nvidia0 (nvidia-ctk's `cdi transform root --from <root> --to /`), and a spec
naming a path the node does not have under the root fails step 6.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

import realenv
from grading_helpers import papermill, step_records
from helpers import tree_state

pytestmark = pytest.mark.real

LIB = "usr/lib/x86_64-linux-gnu"
DRIVER_FILES = {f"{LIB}/libcuda.so.550.54.14": b"libcuda\n", f"{LIB}/libnvidia-ml.so.550.54.14": b"libnvidia-ml\n",
                "usr/bin/nvidia-smi": b"#!/bin/sh\necho nvidia-smi\n"}
LINKS = {f"{LIB}/libcuda.so.1": "libcuda.so.550.54.14", f"{LIB}/libnvidia-ml.so.1": "libnvidia-ml.so.550.54.14"}
GPUS = [f"/dev/nvidia{i}" for i in range(4)]
CSV = "etc/nvidia-container-runtime/host-files-for-container.d"


def gpu_node(root: Path, config: bytes) -> Path:
    """A node root: containerd's config, four GPUs' device nodes, the driver's files and the CSV lists of them
    that nvidia-ctk's CSV mode reads."""
    realenv.need_root()  # mknod
    (root / "dev").mkdir(parents=True)
    for i in range(4):
        os.mknod(root / f"dev/nvidia{i}", 0o666 | 0o020000, os.makedev(195, i))
    os.mknod(root / "dev/nvidiactl", 0o666 | 0o020000, os.makedev(195, 255))
    os.mknod(root / "dev/null", 0o666 | 0o020000, os.makedev(1, 3))  # the spec mounts it: a node has it
    for rel, data in DRIVER_FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
        (root / rel).chmod(0o755)
    for rel, target in LINKS.items():
        (root / rel).symlink_to(target)
    (root / CSV).mkdir(parents=True)
    (root / CSV / "devices.csv").write_text("".join(f"dev, {d}\n" for d in GPUS + ["/dev/nvidiactl"]))
    (root / CSV / "drivers.csv").write_text("".join(f"lib, /{rel}\n" for rel in DRIVER_FILES)
                                            + "".join(f"sym, /{rel}\n" for rel in LINKS))
    (root / "etc/containerd").mkdir(parents=True)
    (root / "etc/containerd/config.toml").write_bytes(config)
    return root


def _files(root: Path) -> dict[str, object]:
    """Every path under the root, a file by its bytes (a folder, a link, a device by its kind)."""
    out: dict[str, object] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_symlink():
            out[rel] = ("link", os.readlink(path))
        elif path.is_file():
            out[rel] = path.read_bytes()
        else:
            out[rel] = "dir" if path.is_dir() else "special"
    return out


def csv_args(root: Path) -> str:
    return f"--mode=csv --csv.file={root / CSV / 'devices.csv'} --csv.file={root / CSV / 'drivers.csv'} --disable-hook all"


def default_config(containerd: str) -> bytes:
    """containerd's own default config (`containerd config default`): 2.x's imports conf.d/*.toml."""
    return subprocess.run([containerd, "config", "default"], capture_output=True, check=True, timeout=60).stdout


FIXTURE_2X = (Path(__file__).resolve().parents[1] / "fixtures/realworld/containerd-2.3-v4/etc/containerd/config.toml")


def test_a_gpu_node_gets_the_spec_its_own_nvidia_ctk_makes_and_podman_injects_it(tmp_path):
    ctk = realenv.need_nvidia_ctk()
    root = gpu_node(tmp_path / "root", FIXTURE_2X.read_bytes())
    out = tmp_path / "out.ipynb"
    proc = papermill(root, out, "-p", "profile", "node", "-p", "nvidia_ctk", ctk, "-p", "cdi_generate_args", csv_args(root))
    assert proc.returncode == 0, proc.stderr[-3000:]
    # plain papermill says what the run did: the profile and why, a line per step, the result
    assert "프로필 / profile: node: profile=node 로 주어졌습니다" in proc.stdout, proc.stdout
    assert "/ node: profile=node was given" in proc.stdout
    assert "결과 / result: 통과 / passed (mode=apply)" in proc.stdout, proc.stdout
    spec = yaml.safe_load((root / "etc/cdi/nvidia.yaml").read_text())
    assert spec["kind"] == "nvidia.com/gpu"
    devices = {d["name"]: d["containerEdits"] for d in spec["devices"]}
    # CSV mode names the node's one integrated device "0" (a Jetson's): every device node is in it and in "all"
    assert set(devices) == {"0", "all"}, sorted(devices)
    assert {n["path"] for n in devices["0"]["deviceNodes"]} >= set(GPUS)
    nodes = {n["path"]: n for n in devices["all"]["deviceNodes"]}
    for i, path in enumerate(GPUS):
        assert (nodes[path]["major"], nodes[path].get("minor", 0)) == (195, i)
        assert nodes[path]["hostPath"] == path  # the node's own, not the mount point's <root>/dev/nvidia0
    mounts = {m["containerPath"]: m["hostPath"] for m in spec["containerEdits"]["mounts"]}
    for rel in DRIVER_FILES:
        assert mounts["/" + rel] == "/" + rel
    assert str(root) not in (root / "etc/cdi/nvidia.yaml").read_text()
    (line,) = [line for line in proc.stdout.splitlines() if line.split()[1:2] == ["6"]]
    assert f" | {ctk} cdi transform root --from={root} --to=/ --input=-" in line, line  # how it was made
    # no answer file of the lab on a node; their facts are in the executed notebook
    assert not (root / "root").exists()
    assert "cdi-keys.txt" in out.read_text()
    # podman's CDI puts the device nodes and the driver's files into a container
    from test_real_podman_cdi import IMAGE, run_in_podman
    script = ('for p in "$@"; do stat -c "%n %F %t:%T" "$p"; done; '
              + "; ".join(f"cat /{rel}" for rel in DRIVER_FILES))
    # podman runs on this machine, which sees the node at <root>: the node's spec, moved there by the same root
    # transform the other way (a consumer on the node itself reads it as written)
    seen_here = subprocess.run([ctk, "cdi", "transform", "root", "--from=/", f"--to={root}", "--input=-"],
                               input=(root / "etc/cdi/nvidia.yaml").read_text(), capture_output=True, text=True,
                               check=True, timeout=60).stdout
    (tmp_path / "podman").mkdir()
    proc = run_in_podman(tmp_path / "podman", seen_here, "--device",
                         "nvidia.com/gpu=all", IMAGE, "/bin/sh", "-c", script, "sh", *GPUS, "/dev/nvidiactl")
    assert proc.returncode == 0, proc.stderr
    for i, path in enumerate(GPUS):
        assert f"{path} character special file c3:{i:x}" in proc.stdout, proc.stdout
    assert "/dev/nvidiactl character special file c3:ff" in proc.stdout
    for data in DRIVER_FILES.values():
        assert data.decode().splitlines()[-1] in proc.stdout


def test_a_node_with_its_spec_in_var_run_cdi_gets_no_second_one(tmp_path):
    realenv.need_root()
    root = gpu_node(tmp_path / "root", FIXTURE_2X.read_bytes())
    theirs = (Path(__file__).resolve().parents[1] / "fixtures" / "good" / "nvidia.yaml")
    text = theirs.read_bytes() if theirs.is_file() else (
        b'cdiVersion: "0.5.0"\nkind: nvidia.com/gpu\ndevices:\n  - name: all\n    containerEdits:\n'
        b'      deviceNodes:\n        - path: /dev/nvidia0\n')
    (root / "var/run/cdi").mkdir(parents=True)
    (root / "var/run/cdi/nvidia.yaml").write_bytes(text)
    out = tmp_path / "out.ipynb"
    proc = papermill(root, out, "-p", "profile", "node")  # no nvidia-ctk either: none is needed
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not (root / "etc/cdi").exists()
    assert (root / "var/run/cdi/nvidia.yaml").read_bytes() == text
    executed = out.read_text()
    assert "judged where it is, and no second one is written at /etc/cdi/nvidia.yaml" in executed
    assert "mv /var/run/cdi/nvidia.yaml" not in executed


def test_a_spec_made_under_the_mount_point_fails_step_6_and_the_transform_its_fix_names_makes_it_pass(tmp_path):
    """The node's spec as a DaemonSet's `nvidia-ctk cdi generate --driver-root=<root> --dev-root=<root>` leaves it
    without the root transform, in /var/run/cdi: every device and library under <root>, paths the node itself does
    not have. Step 6 fails with the transform as its fix (refused before any write); the real nvidia-ctk, run as
    the fix says, makes the spec the node's own and step 6 passes."""
    ctk = realenv.need_nvidia_ctk()
    root = gpu_node(tmp_path / "root", FIXTURE_2X.read_bytes())
    made = subprocess.run([ctk, "cdi", "generate", f"--driver-root={root}", f"--dev-root={root}",
                           *shlex.split(csv_args(root))], capture_output=True, text=True, check=True, timeout=120,
                          env={**os.environ, "NVIDIA_CTK_CDI_OUTPUT_FILE_PATH": ""}).stdout
    assert f"hostPath: {root}/dev/nvidia0" in made  # the premise: what generate alone names
    (root / "var/run/cdi").mkdir(parents=True)
    (root / "var/run/cdi/nvidia.yaml").write_text(made)
    before = tree_state(root)
    out = tmp_path / "out.ipynb"
    proc = papermill(root, out, "-p", "profile", "node")
    assert proc.returncode != 0
    step = step_records(out)[6]
    assert step["status"] == "failed", step
    (problem,) = step["problems"]
    assert problem["code"] == "cdi.paths_missing.mount_point", problem
    assert problem["path"] == "/var/run/cdi/nvidia.yaml" and problem["values"]["prefix"] == str(root)
    assert problem["values"]["paths"].startswith(f"{root}/dev/nvidia0, {root}/dev/nvidia1, ")
    spec = "/var/run/cdi/nvidia.yaml"
    fix = f"nvidia-ctk cdi transform root --from {root} --to / --input {spec} --output {spec}"
    assert fix in problem["fix"]["en"] and fix in problem["fix"]["ko"]
    assert tree_state(root) == before  # refused before any write
    # the fix, as the finding says it (here the node's /var/run/cdi/nvidia.yaml is under the root)
    here = str(root / spec.lstrip("/"))
    subprocess.run([ctk, "cdi", "transform", "root", "--from", str(root), "--to", "/", "--input", here,
                    "--output", here], capture_output=True, check=True, timeout=60)
    assert str(root) not in (root / spec.lstrip("/")).read_text()
    again = tmp_path / "again.ipynb"
    proc = papermill(root, again, "-p", "profile", "node")
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    step = step_records(again)[6]
    assert step["status"] == "unchanged" and step["problems"] == [], step
    assert not (root / "etc/cdi").exists()  # judged where it is, no second spec


def test_a_gpu_node_without_nvidia_ctk_is_refused_before_any_write_with_the_package_to_install(tmp_path):
    realenv.need_root()
    root = gpu_node(tmp_path / "root", FIXTURE_2X.read_bytes())
    before = tree_state(root)
    out = tmp_path / "out.ipynb"
    proc = papermill(root, out, "-p", "profile", "node")
    assert proc.returncode != 0
    executed = out.read_text()
    assert "install the nvidia-container-toolkit package" in executed
    assert "nothing was written" in executed
    assert tree_state(root) == before  # the root as it was, byte for byte, its lock included


@pytest.fixture(scope="module")
def applied_and_removed(tmp_path_factory):
    """apply_and_remove on each containerd 2.x's node root, run once for the module: the tests that read its root
    after the remove share the run (its assertions made the first time)."""
    done: dict[str, tuple[Path, dict]] = {}

    def of(label: str) -> tuple[Path, dict]:
        if label not in done:
            done[label] = apply_and_remove(tmp_path_factory.mktemp(f"node-{label}"), label)
        return done[label]
    return of


@pytest.mark.parametrize("label", realenv.containerd2_versions())
def test_a_2x_node_whose_config_imports_conf_d_gets_a_drop_in_containerd_reads_and_remove_undoes(
        applied_and_removed, label):
    applied_and_removed(label)


def apply_and_remove(tmp_path: Path, label: str) -> tuple[Path, dict]:
    """Apply (plain papermill: its terminal words are asserted) then remove (in process: only its result and the
    files it leaves are read) on a node root whose config is containerd `label`'s own default; the root and its
    files before the apply."""
    from helpers import finished_run

    containerd = realenv.need_containerd(label)
    ctk = realenv.need_nvidia_ctk()
    config = default_config(containerd)
    assert b"conf.d" in config  # containerd's own default imports the folder (issue 39)
    root = gpu_node(tmp_path / "root", config)
    before = _files(root)
    params = {"profile": "node", "nvidia_ctk": ctk, "cdi_generate_args": csv_args(root),
              "containerd_bin": str(containerd)}
    proc = papermill(root, tmp_path / "apply.ipynb", *[a for k, v in params.items() for a in ("-p", k, v)])
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "배치 / layout: dropin" in proc.stdout, proc.stdout  # the layout under its own label (issue 51)
    dropin = root / "etc/containerd/conf.d/99-nvidia.toml"
    assert dropin.is_file()
    assert (root / "etc/containerd/config.toml").read_bytes() == config  # its imports already read the drop-in
    # step 9: containerd itself reads nvidia from the drop-in
    assert f"containerd {label}" in proc.stdout and 'BinaryName = "/usr/bin/nvidia-container-runtime"' in proc.stdout
    rb = finished_run(root, mode="remove", **params)
    assert rb.ok(), [r.text() for r in rb.failed_steps()]
    assert not dropin.exists() and not (root / "etc/cdi/nvidia.yaml").exists()
    assert (root / "etc/containerd/config.toml").read_bytes() == config
    return root, before


def test_after_remove_a_node_holds_nothing_of_the_runbook_but_its_record(applied_and_removed):
    root, before = applied_and_removed(realenv.containerd2_versions()[0])
    left = {k: v for k, v in _files(root).items() if not k.startswith("var/lib/nvidia-runtime-runbook")}
    assert left == before  # no drop-in folder, no spec folder and no backup of either, no lock
