"""podman (a real CDI consumer) injects the spec into a container.

No GPU here: a copy of the spec points every device node's hostPath at /dev/null, so the container must
show each containerPath as a character device 1:3. No registry either: the image is a tar of a
busybox-static rootfs, imported locally. podman 4.3 has no --cdi-spec-dir, so it runs in a private mount
namespace where /run is a tmpfs holding /run/cdi (one of its default spec dirs), and /etc and /var/lib
are overlays whose writes (network locks, blob cache) land in the temp folder: the host is left as it was.
podman refuses a runroot longer than 50 characters, so runroot and tmpdir live in that private /run.
"""
import copy
import os
import subprocess
import tarfile
from pathlib import Path

import pytest
import yaml

import realenv
from runbook_lib.cdi import spec as cdi
from runbook_lib.cdi.validate import validate_spec

pytestmark = pytest.mark.real
IMAGE = "localhost/runbook/busybox:test"
BUSYBOX = "/bin/busybox"

IN_NAMESPACE = r"""
set -eu
t=$1; shift
mount -t tmpfs runbook-run /run
mkdir /run/cdi && cp "$t/spec.yaml" /run/cdi/nvidia.yaml
if [ -n "${SECOND:-}" ]; then cp "$t/spec.yaml" "/run/cdi/$SECOND"; fi
if [ -d "$t/others" ]; then cp "$t"/others/* /run/cdi/; fi
for d in etc var/lib; do
    up="$t/overlay/$d"; mkdir -p "$up/upper" "$up/work"
    mount -t overlay runbook-ov -o "lowerdir=/$d,upperdir=$up/upper,workdir=$up/work" "/$d"
done
p="podman --root $t/storage --runroot /run/podman-runroot --tmpdir /run/podman-tmp --storage-driver vfs --cgroup-manager cgroupfs --events-backend none"
$p import --quiet "$t/rootfs.tar" "$IMAGE" >/dev/null
exec $p run --rm --network none --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "$@"
"""


def busybox_static():
    path = Path(BUSYBOX)
    # a dynamic build names its loader near the start; it would not run in an empty rootfs
    if not path.exists() or b"/ld-linux" in path.read_bytes()[:8192]:
        realenv.missing("정적 busybox(busybox-static)가 없습니다 / busybox-static is not installed")
    return path


def written_spec() -> dict:
    """The spec exactly as the runbook writes it."""
    return yaml.safe_load(cdi.build_minimal_spec())


def make_rootfs_tar(dest: Path):
    with tarfile.open(dest, "w") as tar:
        info = tarfile.TarInfo("bin")
        info.type, info.mode = tarfile.DIRTYPE, 0o755
        tar.addfile(info)
        tar.add(busybox_static(), arcname="bin/busybox")
        for tool in ("sh", "ls", "stat"):
            link = tarfile.TarInfo(f"bin/{tool}")
            link.type, link.linkname = tarfile.SYMTYPE, "busybox"
            tar.addfile(link)


def null_copy(spec: dict) -> dict:
    """The spec with every device node's host side at /dev/null (no GPU on the test machine)."""
    spec = copy.deepcopy(spec)
    for edits in [spec.get("containerEdits", {})] + [d["containerEdits"] for d in spec["devices"]]:
        for node in edits.get("deviceNodes", []):
            node["hostPath"] = "/dev/null"
    return spec


def run_in_podman(tmp_path, spec, *args, name="nvidia.yaml", second: str = "", others: dict | None = None):
    """``spec``: a dict, or the spec's text as written, as /run/cdi/``name``; ``second``: a copy of it under that
    name beside it; ``others``: more files beside it (name -> text), another vendor's spec."""
    realenv.need_root()
    realenv.need_program("podman")
    unshare = realenv.need_program("unshare")
    (tmp_path / "spec.yaml").write_text(spec if isinstance(spec, str) else yaml.safe_dump(spec))
    for other, text in (others or {}).items():
        (tmp_path / "others").mkdir(exist_ok=True)
        (tmp_path / "others" / other).write_text(text)
    make_rootfs_tar(tmp_path / "rootfs.tar")
    env = dict(os.environ, IMAGE=IMAGE, TMPDIR=str(tmp_path / "tmp"), SECOND=second)
    (tmp_path / "tmp").mkdir()
    return subprocess.run([unshare, "--mount", "--propagation", "private", "sh", "-c",
                           IN_NAMESPACE.replace("/run/cdi/nvidia.yaml", f"/run/cdi/{name}"), "sh",
                           str(tmp_path), *args], capture_output=True, text=True, timeout=300, env=env)


def test_podman_injects_every_device_node(tmp_path):
    spec = written_spec()
    assert validate_spec(spec) == []
    paths = [n["path"] for n in spec["containerEdits"]["deviceNodes"] + spec["devices"][0]["containerEdits"]["deviceNodes"]]
    before = Path("/proc/self/mountinfo").read_text()
    proc = run_in_podman(tmp_path, null_copy(spec), "--device", "nvidia.com/gpu=all", IMAGE,
                         "/bin/sh", "-c", 'for p in "$@"; do stat -c "%n %F %t:%T" "$p"; done; echo "ENV=$NVIDIA_VISIBLE_DEVICES"',
                         "sh", *paths)
    assert proc.returncode == 0, proc.stderr
    for path in paths:
        assert f"{path} character special file 1:3" in proc.stdout, proc.stdout
    assert "ENV=void" in proc.stdout
    assert Path("/proc/self/mountinfo").read_text() == before


def test_without_the_device_flag_nothing_is_injected(tmp_path):
    spec = written_spec()
    proc = run_in_podman(tmp_path, null_copy(spec), IMAGE, "/bin/sh", "-c", "ls /dev/nvidia0")
    assert proc.returncode != 0 and "No such file" in proc.stdout + proc.stderr


def test_podman_refuses_an_unknown_device(tmp_path):
    spec = written_spec()
    proc = run_in_podman(tmp_path, null_copy(spec), "--device", "nvidia.com/gpu=0", IMAGE, "/bin/true")
    assert proc.returncode != 0 and "unresolvable CDI devices nvidia.com/gpu=0" in proc.stderr


@pytest.mark.parametrize("name, resolved", [("nvidia.yml", False), ("nvidia.json", True)])
def test_podman_reads_a_spec_only_by_the_names_cdi_scans(tmp_path, name, resolved):
    """Why cdi_spec must end in .yaml or .json (runbook_lib/engine/params.py): a spec named nvidia.yml sits in the CDI
    folder and is never read; the runbook's YAML text in a .json file is read (the CDI library parses YAML)."""
    proc = run_in_podman(tmp_path, null_copy(written_spec()), "--device", "nvidia.com/gpu=all", IMAGE, "/bin/ls", "/",
                         name=name)
    if resolved:
        assert proc.returncode == 0, proc.stderr
    else:
        assert proc.returncode != 0 and "unresolvable CDI devices nvidia.com/gpu=all" in proc.stderr


@pytest.mark.parametrize("second", ["nvidia-old.yaml", "nvidia.json", "nvidia.yaml.orig", "nvidia.yml"])
def test_a_copy_of_the_spec_beside_it_cancels_the_device_when_the_registry_reads_it(tmp_path, second):
    # what runbook_lib/cdi/neighbours.py says: the registry reads every .yaml and .json of the folder, and a
    # device two of them define is dropped; other names (a backup's .orig, .yml) are never read
    from runbook_lib.cdi.neighbours import READ
    proc = run_in_podman(tmp_path, null_copy(written_spec()), "--device", "nvidia.com/gpu=all", IMAGE,
                         "/bin/sh", "-c", "stat -c %F /dev/nvidia0", second=second)
    if second.endswith(READ):
        assert proc.returncode != 0 and "unresolvable CDI devices nvidia.com/gpu=all" in proc.stderr
    else:
        assert proc.returncode == 0 and "character special file" in proc.stdout, proc.stderr


STRICT = {  # what runbook_lib/cdi/strict.py calls unusable (and which of its checks says so), and the schema allows
    "a top-level typo": (lambda text: text.replace("\ncontainerEdits:", "\ncontainerEdit:"), "unknown_fields"),
    "a device's unknown field": (lambda text: text.replace("- name: all\n", "- name: all\n  foo: bar\n"),
                                 "unknown_fields"),
    "a key written twice": (lambda text: text.replace("kind: nvidia.com/gpu\n",
                                                      "kind: nvidia.com/gpu\nkind: nvidia.com/gpu\n"),
                            "duplicate_keys"),
}


@pytest.mark.parametrize("mistake", sorted(STRICT))
def test_the_registry_reads_a_spec_strictly(tmp_path, mistake):
    from runbook_lib.cdi import strict as cdi_strict
    change, says = STRICT[mistake]
    text = change(yaml.safe_dump(null_copy(written_spec()), sort_keys=False))
    found = {"unknown_fields": cdi_strict.unknown_fields(yaml.safe_load(text)),
             "duplicate_keys": cdi_strict.duplicate_keys(text)}
    assert found[says], found  # the grader says so too, by the check that names this mistake
    proc = run_in_podman(tmp_path, text, "--device", "nvidia.com/gpu=all", IMAGE, "/bin/true")
    assert proc.returncode != 0 and "unresolvable CDI devices nvidia.com/gpu=all" in proc.stderr


def test_an_env_entry_written_as_a_mapping_makes_the_spec_unusable(tmp_path):
    """`- NVIDIA_VISIBLE_DEVICES: void`: the upstream schema lets it through (its containerEdits.env says "ref"
    for "$ref"), the library's []string does not; the reference rule of runbook_lib/cdi/validate.py says so."""
    text = yaml.safe_dump(null_copy(written_spec()), sort_keys=False).replace(
        "- NVIDIA_VISIBLE_DEVICES=void", "- NVIDIA_VISIBLE_DEVICES: void")
    spec = yaml.safe_load(text)
    assert spec["containerEdits"]["env"] == [{"NVIDIA_VISIBLE_DEVICES": "void"}]
    from runbook_lib.cdi.validate import schema_findings
    assert schema_findings(spec) == []  # the schema alone passes it
    assert [(f["path"], f["rule"]) for f in validate_spec(spec)] == [("/containerEdits/env/0", "reference")]
    proc = run_in_podman(tmp_path, text, "--device", "nvidia.com/gpu=all", IMAGE, "/bin/true")
    assert proc.returncode != 0 and "unresolvable CDI devices nvidia.com/gpu=all" in proc.stderr


@pytest.mark.parametrize("version", ["0.5.0", "0.6.0", "1.0.0"])
def test_podman_4_3_skips_a_spec_of_a_newer_cdi_version(tmp_path, version):
    # why cdi.version_newer warns above runbook_lib.cdi.spec.CDI_VERSION (a spec copied from the newest docs)
    from runbook_lib.cdi.spec import CDI_VERSION
    text = yaml.safe_dump(null_copy(written_spec()), sort_keys=False).replace(f"cdiVersion: {CDI_VERSION}",
                                                                              f"cdiVersion: {version}")
    proc = run_in_podman(tmp_path, text, "--device", "nvidia.com/gpu=all", IMAGE, "/bin/sh", "-c", "stat -c %F /dev/nvidia0")
    if version == CDI_VERSION:
        assert proc.returncode == 0, proc.stderr
    else:
        assert proc.returncode != 0 and "unresolvable CDI devices nvidia.com/gpu=all" in proc.stderr


def test_another_vendors_spec_beside_ours_leaves_our_device_resolvable(tmp_path):
    """tests/cdi/test_neighbours.py: a spec of another kind that also names a device `all` (amd.com/gpu=all)
    is no conflict; the registry resolves nvidia.com/gpu=all beside it, as the runbook says."""
    from helpers import other_spec
    proc = run_in_podman(tmp_path, null_copy(written_spec()), "--device", "nvidia.com/gpu=all", IMAGE,
                         "/bin/sh", "-c", "stat -c %F /dev/nvidia0", others={"amd.yaml": other_spec("amd.com/gpu")})
    assert proc.returncode == 0 and "character special file" in proc.stdout, proc.stderr
