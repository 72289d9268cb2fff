"""The test fleet: three hosts on this machine, each with its own root, one of them broken, run by Ansible.

    .venv/bin/python tests/fleet/fleet.py [--workdir DIR] [--mode apply|check]

node-a installs from the wheelhouse, node-b uses this interpreter (preinstalled), node-c uses it too but its
containerd config.toml is not valid TOML, so its run fails at step 2 (one wheelhouse venv is enough to prove that
mode: each one is a venv and an offline pip install of the whole dependency tree, the play's slowest part). Every host connects
with ansible_connection=local; what differs is its root, its host folder and its install mode.
The exit code is ansible-playbook's (2 when a host failed, as node-c does).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / "deploy" / "ansible" / "site.yml"
HOSTS = {"node-a": "wheelhouse", "node-b": "preinstalled", "node-c": "preinstalled"}
BROKEN = "node-c"
BROKEN_CONFIG = 'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd\n  default_runtime_name = "runc"\n'


def inventory(workdir: Path) -> dict:
    hosts = {}
    for name, install in HOSTS.items():
        host = {"runbook_root": str(workdir / "roots" / name), "runbook_host_dir": str(workdir / "hosts" / name),
                "runbook_install": install, "runbook_lab_init": True}
        if install == "preinstalled":
            host["runbook_python"] = sys.executable
        hosts[name] = host
    return {"all": {"hosts": hosts, "vars": {
        "ansible_connection": "local",
        "ansible_python_interpreter": sys.executable,
        "runbook_host_python": sys.executable,
        "runbook_archive": str(workdir / "archive"),
        "runbook_wheelhouse": str(workdir / "wheelhouse"),
    }}}


def prepare(workdir: Path) -> Path:
    """Write the inventory; break node-c's root the way a hand-edited node breaks (lab-init adds the rest)."""
    workdir.mkdir(parents=True, exist_ok=True)
    broken = workdir / "roots" / BROKEN / "etc" / "containerd" / "config.toml"
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text(BROKEN_CONFIG)
    inv = workdir / "inventory.yml"
    inv.write_text(yaml.safe_dump(inventory(workdir), sort_keys=False))
    return inv


def ansible_playbook() -> str:
    exe = Path(sys.executable).parent / "ansible-playbook"
    if not exe.exists():
        sys.exit("ansible-playbook 이 없습니다 / ansible-playbook is missing: "
                 f"{sys.executable} -m pip install -e '.[fleet]'")
    return str(exe)


def run_fleet(workdir: Path, mode: str = "apply", capture: bool = False, *extra: str) -> subprocess.CompletedProcess:
    """``extra``: more ansible-playbook arguments (e.g. ``-e runbook_wheelhouse_build=false``)."""
    inv = prepare(workdir)
    # this controller's own settings: modules piped to the local python (no temp file a task), and the hosts'
    # offline pip install (ansible_connection=local: the host's environment is this one) skips compiling every
    # dependency to bytecode; forks: every host at once
    env = dict(os.environ, ANSIBLE_HOME=str(workdir / ".ansible"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_RETRY_FILES_ENABLED="0", ANSIBLE_PIPELINING="1", ANSIBLE_FORKS=str(max(5, len(HOSTS))),
               PIP_NO_COMPILE="1")
    cmd = [ansible_playbook(), "-i", str(inv), str(SITE), "-e", f"runbook_mode={mode}", *extra]
    return subprocess.run(cmd, env=env, text=True, capture_output=capture, timeout=1800)


def main() -> int:
    p = argparse.ArgumentParser(description="런북을 테스트 인벤토리 전체에 실행 / run the runbook across the test inventory")
    p.add_argument("--workdir", default="/tmp/runbook-fleet", type=Path)
    p.add_argument("--mode", choices=["apply", "check"], default="apply")
    args = p.parse_args()
    rc = run_fleet(args.workdir, args.mode).returncode
    print(f"\n보관함 / archives: {args.workdir / 'archive'}\n"
          f"요약 / summary: {sys.executable} -m runbook_lib.cli summary {args.workdir / 'archive'}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
