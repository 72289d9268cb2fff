"""Step 3's own words when it passes (steps/options.py ``message``): the options as containerd reads them from the
files now, each value as TOML writes it, in both languages; a SystemdCgroup left out reads as false, as containerd
reads it."""

from __future__ import annotations

from helpers import node_root

from runbook_lib.lab.check_step import check_step
from runbook_lib.lab.init_root import finished_lab

CONFIG = """version = 2
[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "runc"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
    runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
      BinaryName = "/usr/bin/nvidia-container-runtime"
"""


def test_a_finished_lab_s_step_3_says_the_options_it_read(tmp_path):
    root = tmp_path / "lab"
    finished_lab(str(root))
    result = check_step({"root": str(root)}, "options")
    assert result.status == "passed"
    assert (result.message.ko, result.message.en) == (
        'containerd 가 읽는 options: BinaryName = "/usr/bin/nvidia-container-runtime", SystemdCgroup = true',
        'the options as containerd reads them: BinaryName = "/usr/bin/nvidia-container-runtime", SystemdCgroup = true')


def test_a_systemdcgroup_left_out_reads_as_false(tmp_path):
    """A node whose runc and nvidia leave SystemdCgroup out (containerd's default, false): step 3 passes and says
    false, the value containerd uses, not nothing."""
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    root = node_root(tmp_path / "node", config)
    result = check_step({"root": str(root), "profile": "node"}, "options")
    assert result.status == "passed"
    assert result.message.en == ('the options as containerd reads them: BinaryName = "/usr/bin/nvidia-container-runtime", '
                                 'SystemdCgroup = false')
    assert (root / "etc/containerd/config.toml").read_text() == CONFIG, "check mode writes nothing"
