"""The throw-away daemon's copy of a config (runbook_lib/containerd/throwaway.py): every address it serves on is
in its temp folder, where each config version reads it (a real containerd 2.3+ on a version-4 copy:
tests/real/test_real_pod_step.py)."""
import tomllib
from pathlib import Path

from runbook_lib.containerd.throwaway import sandbox_config, serves_grpc, shims_beside

V4 = Path(__file__).parents[1] / "fixtures" / "distro" / "containerd-2.3-config-v4.toml"


def test_a_version_4_copy_serves_from_the_server_plugins_in_the_temp_folder(tmp_path):
    copy = tomllib.loads(sandbox_config(tomllib.loads(V4.read_text()), 4, tmp_path))
    servers = {name: copy["plugins"][f"io.containerd.server.v1.{name}"]["address"] for name in ("grpc", "ttrpc", "debug", "metrics")}
    assert servers == {"grpc": str(tmp_path / "containerd.sock"), "ttrpc": str(tmp_path / "containerd.sock.ttrpc"),
                       "debug": "", "metrics": ""}
    assert not {"grpc", "ttrpc", "debug", "metrics"} & set(copy)  # version 4 has no top-level server tables


def test_a_version_2_copy_keeps_the_top_level_server_tables(tmp_path):
    copy = tomllib.loads(sandbox_config({"version": 2}, 2, tmp_path))
    assert copy["grpc"]["address"] == str(tmp_path / "containerd.sock") and "io.containerd.server.v1.grpc" not in copy["plugins"]


def test_the_daemon_finds_its_own_release_s_shim_first():
    assert shims_beside("/opt/containerd-v2.3.4/bin/containerd")["PATH"].startswith("/opt/containerd-v2.3.4/bin:")


# containerd 2.3.4's log as a throw-away daemon started (a test once connected here and was refused)
_TTRPC = 'time="2026-12-07T13:09:11.879588673Z" level=info msg=serving... address=/t/d/containerd.sock.ttrpc\n'
_STARTING = ('time="2026-12-07T13:09:11.879659739Z" level=info msg="starting GRPC server" '
             'address=/t/d/containerd.sock gid=0 uid=0\n')
_GRPC = 'time="2026-12-07T13:09:11.886232545Z" level=info msg=serving... address=/t/d/containerd.sock\n'


def test_the_daemon_is_ready_when_its_grpc_socket_serves_not_its_ttrpc_socket():
    socket = Path("/t/d/containerd.sock")
    assert not serves_grpc(_TTRPC + _STARTING, socket)  # the file exists here: bound, not yet listening
    assert serves_grpc(_TTRPC + _STARTING + _GRPC, socket)
    assert not serves_grpc(_GRPC, Path("/t/d/other.sock"))
