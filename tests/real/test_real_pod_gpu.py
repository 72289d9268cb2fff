"""On a GPU node: the pod step's `node` mode runs `nvidia-smi -L` in a container started through the nvidia
handler, with the real nvidia-container-runtime as BinaryName, on a throw-away containerd (the node's own is
left alone). Skipped, saying why, where there is no GPU (CI, the lab's VMs): the marker `gpu` keeps that skip
a skip under RUNBOOK_REQUIRE_REAL=1."""
import shutil
from pathlib import Path

import pytest

pytestmark = [pytest.mark.real, pytest.mark.gpu]
pytest.importorskip("grpc")
RUNTIME = Path("/usr/bin/nvidia-container-runtime")


def gpu_node_or_skip() -> None:
    if shutil.which("nvidia-smi") is None:
        pytest.skip("GPU 노드가 아닙니다: nvidia-smi 가 없습니다 / not a GPU node: no nvidia-smi")
    if not RUNTIME.exists():
        pytest.skip(f"nvidia-container-toolkit 가 없습니다: {RUNTIME} / nvidia-container-toolkit is not installed: {RUNTIME}")


def test_nvidia_smi_in_a_container_through_the_handler_lists_the_gpus(containerd, tmp_path):
    gpu_node_or_skip()
    import subprocess

    from runbook_lib.containerd import oci_layout, throwaway
    from runbook_lib.containerd.smoke import node as smoke_node
    from runbook_lib.containerd.effective import load_effective
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run
    from runbook_lib.fs.target import Target
    root = tmp_path / "root"
    root.mkdir()
    rb = Run(validate(root=str(root))).start()
    try:
        rb.run_all()
    finally:
        rb.finish()
    eff = load_effective(Target(str(root)), "/etc/containerd/config.toml")  # BinaryName: the real runtime
    base = tmp_path / "d"
    base.mkdir()
    daemon = throwaway.Daemon(containerd, throwaway.sandbox_config(eff.data, eff.version, base), base)
    try:
        daemon.wait_ready()
        busybox = oci_layout.busybox_static()
        for name in (throwaway.PAUSE_IMAGE, "localhost/runbook/smoke:gpu"):
            image = oci_layout.build_image_tar(tmp_path / "i.tar", name, ["/bin/busybox", "sleep", "3600"], busybox)
            assert daemon.ctr("images", "import", "--snapshotter", "native", str(image)).returncode == 0
        client, status = smoke_node.reach(str(daemon.socket), 120)
        found = smoke_node.run(client=client, status=status, socket=str(daemon.socket), handler="nvidia",
                               image="localhost/runbook/smoke:gpu", command="nvidia-smi -L", pull=False, timeout=120)
    finally:
        daemon.stop()
    on_host = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout
    assert found.problems == [] and found.facts["exit_code"] == 0, found.facts
    assert found.facts["gpu_lines"] == smoke_node.gpu_lines(on_host) != []
