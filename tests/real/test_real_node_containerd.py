"""node.py finds a real containerd daemon by its command line, with its --config, as `ps` would; the
parsing of the command lines k3s, Docker and microk8s start containerd with."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from realenv import need_program, need_root
from runbook_lib.containerd.throwaway import Daemon as RealDaemon
from runbook_lib.containerd.throwaway import sandbox_config_text
from runbook_lib.containerd.node import cri_disabled_by, kubernetes_daemon, parse_cmdline, running_containerds

CONFIG = 'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n  runtime_type = "io.containerd.runc.v2"\n'


def test_a_running_daemon_is_found_with_its_config(tmp_path: Path):
    binary = need_program("containerd")
    need_root()
    daemon = RealDaemon(binary, sandbox_config_text(CONFIG, tmp_path), tmp_path)
    try:
        daemon.wait_ready()
        found = [d for d in running_containerds() if d.pid == daemon.pid]
        assert len(found) == 1 and found[0].config == str(daemon.config) and found[0].owner == "containerd"
    finally:
        daemon.stop()
    assert daemon.pid not in [d.pid for d in running_containerds()]


def test_command_lines_of_each_owner():
    k3s = parse_cmdline(10, b"containerd\0-c\0/var/lib/rancher/k3s/agent/etc/containerd/config.toml\0-a\0/run/k3s/containerd/containerd.sock\0")
    docker = parse_cmdline(11, b"/usr/bin/containerd\0--config\0/var/run/docker/containerd/containerd.toml\0")
    mk8s = parse_cmdline(12, b"/snap/microk8s/7000/bin/containerd\0--config\0/var/snap/microk8s/7000/args/containerd.toml\0")
    system = parse_cmdline(13, b"/usr/bin/containerd\0")
    assert (k3s.owner, k3s.config, k3s.address) == ("k3s", "/var/lib/rancher/k3s/agent/etc/containerd/config.toml",
                                                    "/run/k3s/containerd/containerd.sock")
    assert docker.owner == "docker" and mk8s.owner == "microk8s" and system.config == "/etc/containerd/config.toml"
    assert parse_cmdline(14, b"/usr/bin/containerd-shim-runc-v2\0-namespace\0k8s.io\0") is None
    assert parse_cmdline(15, b"containerd\0config\0dump\0") is None
    assert kubernetes_daemon([docker, system, k3s]) is k3s and kubernetes_daemon([docker, system]) is system
    assert cri_disabled_by({"disabled_plugins": ["cri"]}, 1) == ["cri"] and cri_disabled_by({}, 3) == []


_STAND_IN = "import sys, time\nsys.stdout.write('up\\n')\nsys.stdout.flush()\ntime.sleep(300)\n"


def test_a_run_chrooted_into_an_image_takes_only_the_images_own_containerd(tmp_path: Path):
    """A run chrooted into an image being built (Packer's chroot builders) sees the build machine's processes:
    the machine's containerd, its --config a file of the machine, is not the image's; a containerd started in
    the chroot is. The stand-ins are Python under the name containerd, sleeping with a daemon's flags."""
    from node_chroot import run_as_node
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin/containerd").symlink_to(sys.executable)
    (tmp_path / "stand_in.py").write_text(_STAND_IN)
    machine = subprocess.Popen([str(tmp_path / "bin/containerd"), "-u", str(tmp_path / "stand_in.py"), "--config",
                                str(tmp_path / "machine.toml")], stdout=subprocess.PIPE)
    image = tmp_path / "image"
    (image / "opt/bin").mkdir(parents=True)
    (image / "opt/bin/containerd").symlink_to(sys.executable)
    (image / "opt/stand_in.py").write_text(_STAND_IN)
    inside = ("import os, subprocess\n"
              "from runbook_lib.containerd.node import running_containerds\n"
              "own = subprocess.Popen(['/opt/bin/containerd', '-u', '/opt/stand_in.py', '--config', '/etc/image.toml'],"
              " stdout=subprocess.PIPE)\n"
              "own.stdout.readline()\n"
              "print(os.path.exists('/proc/%d'), [d.config for d in running_containerds()])\n"
              "own.kill()\n" % machine.pid)
    try:
        assert machine.stdout.readline() == b"up\n"
        seen = run_as_node(image, [sys.executable, "-c", inside], own_pids=False)
    finally:
        machine.kill()
        machine.wait()
    assert seen.returncode == 0, seen.stderr
    assert seen.stdout.split() == ["True", "['/etc/image.toml']"], "the machine's daemon is seen, not taken"
