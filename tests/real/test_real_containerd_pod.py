"""A pod sandbox started through the registered handler by the pod step's `sandbox` mode
(runbook_lib/containerd/smoke/sandbox.py): containerd 1.6 really runs the configured BinaryName.

The product copies the config, puts a recording stand-in at BinaryName, starts a throw-away daemon and a pod
through the handler, then a pod of the default runtime. These tests give it the repository's fixtures and
check what it found against what containerd did, and that nothing of the run is left on the machine.

It also proves the claim of issue 3 / tests/fixtures/broken/README.md that `SystemdCgroup = "true"` (a
string) is accepted and kept until a pod starts, and that the pod then fails with containerd's own words,
which step 9's verdict quotes too.
"""
import tomllib
from pathlib import Path

import pytest

import realenv
from paths import BROKEN, GOOD_CONFIG
from pod_traces import leaves_nothing

pytestmark = pytest.mark.real
pytest.importorskip("grpc")
CRI = "io.containerd.grpc.v1.cri"


@pytest.fixture
def smoke(containerd, tmp_path):
    realenv.need_program("ctr")
    realenv.need_program("runc")
    from runbook_lib.containerd import oci_layout
    from runbook_lib.containerd.smoke import sandbox as smoke_sandbox
    if oci_layout.busybox_static() is None:
        realenv.missing("정적 busybox 가 없습니다 (busybox-static) / busybox-static is not installed")

    def run(text: str, handler: str = "nvidia", timeout: float = 60):
        data = tomllib.loads(text)
        return smoke_sandbox.run(data=data, version=data["version"], handler=handler, runtime="nvidia",
                                 containerd=containerd, timeout=timeout)

    with leaves_nothing():
        yield run


def with_systemd_cgroup(value: bool) -> str:
    return GOOD_CONFIG.read_text().replace("SystemdCgroup = true", f"SystemdCgroup = {str(value).lower()}")


def test_the_handler_runs_the_configured_binary_and_the_default_runtime_does_not(smoke):
    found = smoke(GOOD_CONFIG.read_text())
    f = found.facts
    assert found.problems == [] and f["left"] == []
    sandbox = f["sandbox_id"]
    assert f["binary"] == "/usr/bin/nvidia-container-runtime" and f["stand_in"].endswith("/bin/nvidia-container-runtime")
    # the shim called our BinaryName to create, start and stop exactly this sandbox
    task = f"<tmp>/state/io.containerd.runtime.v2.task/k8s.io/{sandbox}"
    assert f"--systemd-cgroup create --bundle {task} --pid-file {task}/init.pid {sandbox}" in " ".join(f["calls"])
    assert any(c.endswith(f"--systemd-cgroup start {sandbox}") for c in f["calls"]), f["calls"]
    assert any(c.endswith(f" kill {sandbox} 9") for c in f["calls"]), f["calls"]
    assert f["binary_called"] is True and f["systemd_cgroup_flag"] is True
    # the default runtime's pod went through the default's own stand-in, never through the nvidia binary's
    plain = f["default_sandbox_id"]
    assert plain and plain != sandbox and f["default_ran_it"] is False
    assert not any(plain in c for c in f["calls"]) and any(c.endswith(f" start {plain}") for c in f["default_calls"])


def test_systemd_cgroup_false_reaches_the_binary_as_no_flag(smoke):
    from runbook_lib.containerd.smoke.facts import judge
    from runbook_lib.engine.params import validate
    found = smoke(with_systemd_cgroup(False))
    f = found.facts
    assert f["binary_called"] is True and f["systemd_cgroup_flag"] is False
    assert all("--systemd-cgroup" not in c for c in f["calls"]), f["calls"]
    # judged against the parameter: the kubelet's driver is systemd, the binary runs without it
    (problem,) = judge(found, validate(root="/", mode="check", systemd_cgroup=True))
    assert problem.code == "pod.flag_differs" and "without --systemd-cgroup" in problem.what.en
    assert judge(found, validate(root="/", mode="check", systemd_cgroup=False)) == []


def test_string_systemd_cgroup_is_kept_until_a_pod_starts_then_fails(smoke, containerd, tmp_path):
    """The claim of tests/fixtures/broken/README.md, issue 3 and step 9's verdict, with containerd's words."""
    from runbook_lib.containerd import ask
    from runbook_lib.containerd.verify import containerd_reading
    from runbook_lib.engine.params import validate

    text = (BROKEN / "systemdcgroup-string.toml").read_text()
    found = smoke(text)
    (problem,) = found.problems
    assert problem.code == "pod.rejected.string_boolean"
    for said in (problem.what.en, problem.what.ko):
        assert "failed to generate runtime options" in said and "Can't convert true(string) to bool" in said
    assert "SystemdCgroup = true" in problem.fix.en and found.facts["calls"] == []  # failed before the binary ran
    # step 9's verdict on the same file quotes what containerd says when the pod starts
    config = tmp_path / "config.toml"
    config.write_text(text)
    reading = containerd_reading(containerd, config, Path("/"), "nvidia")
    params = validate(root="/", mode="check", binary_name="/usr/bin/nvidia-container-runtime", systemd_cgroup=True)
    _, problems = ask.compare(reading, params, None, "runc")
    (problem,) = problems
    assert "Can't convert true(string) to bool" in problem.what.en and "Can't convert true(string) to bool" in problem.what.ko


def test_a_handler_that_names_no_runtime_fails_with_containerds_words(smoke):
    (problem,) = smoke(GOOD_CONFIG.read_text(), handler="nvdia").problems
    assert problem.code == "pod.rejected.no_runtime"
    assert 'no runtime for "nvdia" is configured' in problem.what.en and "nvidia, runc" in problem.what.en
    assert "handler: nvidia" in problem.fix.en


def test_a_wrong_runtime_type_fails_with_containerds_words(smoke):
    import tomlkit
    doc = tomlkit.parse(GOOD_CONFIG.read_text())
    doc["plugins"][CRI]["containerd"]["runtimes"]["nvidia"]["runtime_type"] = "io.containerd.runc.v3"
    text = tomlkit.dumps(doc)
    (problem,) = smoke(text).problems
    assert problem.code == "pod.rejected.runtime_type"
    assert 'binary not installed "containerd-shim-runc-v3"' in problem.what.en and "io.containerd.runc.v2" in problem.fix.en


def test_a_config_the_cri_plugin_refuses_quotes_containerds_log(smoke):
    text = GOOD_CONFIG.read_text().replace('default_runtime_name = "runc"', 'default_runtime_name = "rnuc"')
    (problem,) = smoke(text).problems
    assert problem.code == "pod.daemon_failed"
    assert "no corresponding runtime configured in `containerd.runtimes`" in problem.what.en
    assert 'default_runtime_name = "rnuc"' in problem.what.ko


def test_past_the_deadline_everything_is_undone(smoke):
    (problem,) = smoke(GOOD_CONFIG.read_text(), timeout=1e-9).problems  # over before the daemon answers
    assert problem.code == "pod.timeout"


def test_an_interrupted_run_is_undone_too(smoke, monkeypatch):
    """A KeyboardInterrupt (the kernel's interrupt button) right after the pod started: the finally undoes it."""
    from runbook_lib.containerd import cri
    real = cri.RuntimeService.run_pod_sandbox

    def started_then_interrupted(self, config, handler):
        real(self, config, handler)
        raise KeyboardInterrupt

    monkeypatch.setattr(cri.RuntimeService, "run_pod_sandbox", started_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        smoke(GOOD_CONFIG.read_text())
