"""A throw-away containerd standing in for a node, for the pod step's `smoke node` tests: it runs the config the
runbook wrote under a lab root (BinaryName pointing at a stand-in that records its calls and hands over to runc,
since this machine has no GPU), and has the images it needs imported, as on an air-gapped node."""
from __future__ import annotations

import realenv
from helpers import finished_run

SMOKE_IMAGE = "localhost/runbook/smoke:test"


class Node:
    """`containerd` on the config `finished_run(root, **apply_params)` wrote, changed by `tweak(data, version)`
    (e.g. the folders it scans for CDI specs) before the daemon reads it."""

    def __init__(self, containerd: str, base, tweak=None, **apply_params):
        from runbook_lib.containerd import oci_layout, throwaway
        from runbook_lib.containerd.effective import load_effective
        from runbook_lib.containerd.tables import get_in
        from runbook_lib.containerd.versions import runtimes_path
        from runbook_lib.fs.target import Target
        self.root = base / "root"
        self.root.mkdir()
        assert finished_run(self.root, **apply_params).ok()
        eff = load_effective(Target(str(self.root)), "/etc/containerd/config.toml")
        self.record = base / "calls"
        stand_in = base / "nvidia-container-runtime"
        stand_in.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> {self.record}\n'
                            'for a; do shift; [ "$a" = --systemd-cgroup ] || set -- "$@" "$a"; done\n'
                            f'exec {realenv.need_program("runc")} "$@"\n')
        stand_in.chmod(0o755)
        data = eff.data
        runtime = apply_params.get("runtime_name", "nvidia")
        get_in(data, runtimes_path(eff.version))[runtime]["options"]["BinaryName"] = str(stand_in)
        if tweak is not None:
            tweak(data, eff.version)
        (base / "d").mkdir()
        self.daemon = throwaway.Daemon(containerd, throwaway.sandbox_config(data, eff.version, base / "d"), base / "d")
        self.socket = str(self.daemon.socket)
        self.daemon.wait_ready()
        busybox = oci_layout.busybox_static()
        for name, tar in ((throwaway.PAUSE_IMAGE, "pause.tar"), (SMOKE_IMAGE, "smoke.tar")):
            image = oci_layout.build_image_tar(base / tar, name, ["/bin/busybox", "sleep", "3600"], busybox,
                                               shell=True)
            done = self.daemon.ctr("images", "import", "--snapshotter", "native", str(image))
            assert done.returncode == 0, done.stderr

    def check(self, command: str, **params):
        """A check-mode run of every step with `smoke node` on this daemon: the pod step's result and reading."""
        from runbook_lib.engine.params import validate
        from runbook_lib.engine.run import Run
        values = {"smoke": "node", "cri_endpoint": self.socket, "smoke_image": SMOKE_IMAGE, "smoke_command": command,
                  **params}
        rb = Run(validate(root=str(self.root), mode="check", **values)).start()
        try:
            rb.run_all()
        finally:
            rb.finish()
        assert self.daemon.ctr("containers", "ls", "-q").stdout.strip() == ""  # pod and containers removed
        return rb.results["pod"], rb.readings.get("pod")


def need_busybox() -> None:
    from runbook_lib.containerd import oci_layout
    if oci_layout.busybox_static() is None:
        realenv.missing("정적 busybox 가 없습니다 (busybox-static) / busybox-static is not installed")
