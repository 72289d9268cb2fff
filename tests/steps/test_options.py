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


# --- option lines written in the runtime table itself: step 2's mistake, judged by step 3 as they read once moved

def _lab(tmp_path, old: str, new: str):
    root = tmp_path / "lab"
    finished_lab(str(root))
    config = root / "etc/containerd/config.toml"
    text = config.read_text()
    assert old in text
    config.write_text(text.replace(old, new, 1))
    return root, config.read_text()


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


NVIDIA_OPTIONS = '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]'


def test_the_options_header_left_out_costs_step_2_only(tmp_path):
    """The lines are right but containerd drops them: step 2 says to put the header above them; step 3 judges
    them as they read once it is there, so it neither fails nor says SystemdCgroup is missing or false."""
    root, text = _lab(tmp_path, NVIDIA_OPTIONS + "\n", "")
    runtime = check_step({"root": str(root)}, "runtime")
    assert runtime.status == "failed"
    assert [p.code for p in runtime.problems if p.is_error] == ["runtime.option_outside_options"]
    options = check_step({"root": str(root)}, "options")
    assert options.status == "passed", [(p.code, p.line) for p in options.problems]
    assert options.problems == [], "no warning either: runc's SystemdCgroup is not compared with a line not read yet"


def test_a_wrong_value_among_the_moved_lines_is_step_3_s_own_finding_at_its_line(tmp_path):
    root, text = _lab(tmp_path, '          runtime_type = "io.containerd.runc.v2"\n\n          ' + NVIDIA_OPTIONS,
                      '          runtime_type = "io.containerd.runc.v2"\n          SystemdCgroup = false\n\n          '
                      + NVIDIA_OPTIONS)
    text = text.replace("            SystemdCgroup = true\n\n    [plugins", "\n    [plugins", 1)
    (root / "etc/containerd/config.toml").write_text(text)
    runtime = check_step({"root": str(root)}, "runtime")
    assert [p.code for p in runtime.problems if p.is_error] == ["runtime.option_outside_options.move"]
    options = check_step({"root": str(root)}, "options")
    assert options.status == "failed"
    wrong = [p for p in options.problems if p.is_error]
    assert [(p.code, p.line) for p in wrong] == [("options.systemd_cgroup.wrong", _line(text, "SystemdCgroup = false"))]
    assert wrong[0].values["actual"] == "false"


def test_a_line_above_the_options_header_beside_a_right_binaryname_passes_step_3(tmp_path):
    root, text = _lab(tmp_path, "\n\n          " + NVIDIA_OPTIONS, "\n          SystemdCgroup = true\n\n          " + NVIDIA_OPTIONS)
    text = text.replace("            SystemdCgroup = true\n\n    [plugins", "\n    [plugins", 1)
    (root / "etc/containerd/config.toml").write_text(text)
    assert text.count("SystemdCgroup = true") == 2  # runc's own, and nvidia's above its options header
    assert check_step({"root": str(root)}, "runtime").status == "failed"
    assert check_step({"root": str(root)}, "options").status == "passed"


def test_a_misplaced_runtime_table_s_right_options_pass_step_3_without_a_warning(tmp_path):
    """Issue 41's case: the table is judged where it stands; runc's SystemdCgroup is not compared with what
    containerd reads before step 2's fix (nothing, read as false), which would be step 2's mistake said again."""
    from runbook_lib.lab.init_root import add_mistakes
    root = tmp_path / "lab"
    finished_lab(str(root))
    add_mistakes(str(root), "misplaced-table")
    assert check_step({"root": str(root)}, "runtime").status == "failed"
    options = check_step({"root": str(root)}, "options")
    assert (options.status, options.problems) == ("passed", [])
