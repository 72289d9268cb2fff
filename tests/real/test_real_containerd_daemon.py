"""A real containerd daemon on a sandboxed copy of the config, asked over CRI gRPC what it registered."""
import json
import signal

import pytest

import realenv
from paths import GOOD_CONFIG

pytestmark = pytest.mark.real
grpc = pytest.importorskip("grpc")


@pytest.fixture
def daemon_for(every_containerd, tmp_path):
    """Start a daemon of each real containerd (1.6 and every pinned 2.x) on a config text; always stopped,
    and checked to leave nothing behind."""
    realenv.need_root()
    containerd = every_containerd
    realenv.need_program("unshare")
    from runbook_lib.containerd.throwaway import Daemon, sandbox_config_text
    started = []

    def start(config_text):
        daemon = Daemon(containerd, sandbox_config_text(config_text, tmp_path), tmp_path)
        started.append(daemon)
        daemon.wait_ready()
        return daemon

    yield start
    for daemon in started:
        daemon.stop()
        assert daemon.leftovers() == []


def cri_config(daemon):
    from runbook_lib.containerd.cri import RuntimeService
    client = RuntimeService(str(daemon.socket))
    try:
        info = client.status(verbose=True)
    finally:
        client.close()
    return json.loads(info["config"])


def test_cri_registers_the_nvidia_handler(daemon_for):
    config = cri_config(daemon_for(GOOD_CONFIG.read_text()))
    runtimes = config["containerd"]["runtimes"]
    assert sorted(runtimes) == ["nvidia", "runc"]
    nvidia = runtimes["nvidia"]
    assert nvidia["runtimeType"] == "io.containerd.runc.v2"
    assert nvidia["options"]["BinaryName"] == "/usr/bin/nvidia-container-runtime"
    assert nvidia["options"]["SystemdCgroup"] is True
    assert config["containerd"]["defaultRuntimeName"] == "runc"
    assert runtimes["runc"]["options"]["SystemdCgroup"] is True  # the base's runc is untouched


def test_string_boolean_reaches_the_cri_plugin_as_a_string(daemon_for, tmp_path):
    # containerd starts and registers the handler; the string only fails when a pod starts
    from paths import BROKEN
    config = cri_config(daemon_for((BROKEN / "systemdcgroup-string.toml").read_text()))
    assert config["containerd"]["runtimes"]["nvidia"]["options"]["SystemdCgroup"] == "true"


def test_daemon_stop_is_by_pid_and_complete(daemon_for):
    daemon = daemon_for(GOOD_CONFIG.read_text())
    assert daemon.proc.poll() is None
    daemon.proc.send_signal(signal.SIGTERM)
    assert daemon.proc.wait(timeout=20) is not None
    assert daemon.leftovers() == []


def test_a_default_runtime_that_names_no_runtime_keeps_the_cri_plugin_from_loading(daemon_for):
    # default.not_a_runtime (runbook_lib/containerd/diagnose.py): "runc " typed with a space, or "rnuc", and
    # containerd's CRI plugin refuses its config, so the CRI service is not there at all
    text = GOOD_CONFIG.read_text().replace('default_runtime_name = "runc"', 'default_runtime_name = "runc "')
    daemon = daemon_for(text)
    assert "no corresponding runtime configured in `containerd.runtimes`" in daemon.log.read_text()
    with pytest.raises(grpc.RpcError):
        cri_config(daemon)
