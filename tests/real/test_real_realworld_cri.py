"""The booted daemon's word on every real-world config the runbook applies (tests/fixtures/realworld/): after
apply, a real containerd daemon started on what it reads (its own `config dump` of the node's files, imports
merged, every path it writes moved into a temp folder: containerd/throwaway.py) serves the nvidia handler, and
the default runtime's handler is the one it served before the run: the same name, runtime type and options.

One daemon boot per (config, containerd) cell whose committed expectation (expected.json) is "applied"; a cell
that apply refuses writes nothing (test_real_realworld.py proves the bytes), so there is nothing to boot.
"""
from __future__ import annotations

import json
import shutil
import tomllib

import pytest

import realenv
import realworld_judge as judge
from runbook_lib.containerd.invariant import differences

pytestmark = [pytest.mark.real, pytest.mark.slow]
grpc = pytest.importorskip("grpc")

CELLS = [(name, label) for name, row in judge.expected().items() for label in realenv.containerd_labels()
         if row.get(label, {}).get("apply") == "applied"]


def _served(containerd, dump: dict, base) -> tuple[dict, list[str]]:
    """The CRI plugin's runtimes config and handler names, from a daemon booted on a dump."""
    from runbook_lib.containerd.cri import RuntimeService
    from runbook_lib.containerd.throwaway import Daemon, sandbox_config
    base.mkdir()
    daemon = Daemon(containerd, sandbox_config(dump, int(dump["version"]), base), base)
    try:
        daemon.wait_ready()
        client = RuntimeService(str(daemon.socket))
        try:
            config = json.loads(client.status(verbose=True)["config"])["containerd"]
            handlers = client.runtime_handlers()
        except grpc.RpcError as exc:  # the CRI plugin did not load: containerd's log says why
            pytest.fail(f"{exc.details()}\n{_failures(daemon.said())}", pytrace=False)
        finally:
            client.close()
    finally:
        daemon.stop()
    assert daemon.leftovers() == []
    return config, handlers


def _specs_under_root(dump: dict, root) -> dict:
    """The daemon runs on this machine, not in the node's root: a runtime's base OCI spec (a file containerd
    reads at start) is named by its path under the root."""
    for table in judge._runtimes(dump).values():
        spec = table.get("base_runtime_spec")
        if spec and (root / spec.lstrip("/")).is_file():
            table["base_runtime_spec"] = str(root / spec.lstrip("/"))
    return dump


def _failures(log: str) -> str:
    return "\n".join(ln for ln in log.splitlines() if "level=error" in ln or "level=warning" in ln and "cri" in ln)


def _handler(table: dict) -> dict:
    """What a handler runs, from a dump's runtime table or the CRI status's (its own key names)."""
    return {"runtime_type": table.get("runtime_type", table.get("runtimeType")), "options": table.get("options") or {}}


@pytest.mark.parametrize("name, label", CELLS, ids=[f"{n}-{v}" for n, v in CELLS])
def test_the_booted_daemon_serves_nvidia_and_the_default_handler_unchanged(name, label, tmp_path):
    realenv.need_root()
    realenv.need_program("unshare")
    containerd = realenv.need_containerd(label)
    root = tmp_path / "root"
    shutil.copytree(judge.REALWORLD / name, root)
    judge.node_spec(root)  # the node's own spec, as test_real_realworld.py gives it: a node profile makes none
    generated = judge._read_by_containerd(root).read_bytes()
    before = judge._dump(containerd, root)
    assert isinstance(before, dict), before
    rb = judge._run(root, containerd, "apply")
    assert judge._apply_words(rb) == "applied"
    judge._restart_distribution(root, generated)
    after = tomllib.loads(judge.containerd_dump(containerd, judge._read_by_containerd(root), root))
    config, handlers = _served(containerd, _specs_under_root(after, root), tmp_path / "daemon")
    runtimes, default = config["runtimes"], config["defaultRuntimeName"]
    assert default == judge._default(before)  # the node's default, as containerd read it before the run
    assert set(runtimes) == set(judge._runtimes(before)) | {"nvidia"}
    assert runtimes["nvidia"]["options"]["BinaryName"] == judge.BINARY
    assert differences(_handler(judge._runtimes(before)[default]), _handler(runtimes[default])) == []
    if containerd.is_2x:  # CRI's runtime handlers (1.30+): every runtime, and the default once more as ""
        assert sorted(handlers) == sorted({"", *runtimes})
