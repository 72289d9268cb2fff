"""What the tests of students' hand-made mistakes share: the lab's lines they break, and an edit of one file."""

from grading_helpers import TOOLKIT

RC = f"{TOOLKIT}/runtimeclass.yaml"
CFG = "/etc/containerd/config.toml"
BINARY = 'BinaryName = "/usr/bin/nvidia-container-runtime"'
OPTIONS = '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]'
CGROUP = "            SystemdCgroup = true\n\n    [plugins"


def edit(root, rel, old, new):
    """Replace the first ``old`` in one file under the root (it must be there)."""
    f = root / rel
    text = f.read_text()
    assert old in text, old
    f.write_text(text.replace(old, new, 1))
