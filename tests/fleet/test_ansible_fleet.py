"""ansible-playbook for real against the test fleet: three local hosts, both install modes, one broken.

The archives of every host (the broken one's too) must reach the controller, the broken host alone must fail,
and `runbook summary` must name its failing step.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fleet import BROKEN, HOSTS, run_fleet
from fleet_helpers import runbook

pytestmark = pytest.mark.slow


def recap(output: str) -> dict[str, dict[str, int]]:
    rows = re.findall(r"^(\S+)\s+:\s+(.*)$", output.split("PLAY RECAP", 1)[1], re.M)
    return {host: {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", rest)} for host, rest in rows}


def latest_manifests(archive: Path) -> dict[str, dict]:
    out = {}
    for host in HOSTS:
        runs = sorted((archive / host).iterdir())
        assert sorted(p.name for p in runs[-1].iterdir()) == ["manifest.json", "run.html", "run.ipynb"], host
        out[host] = json.loads((runs[-1] / "manifest.json").read_text())
    return out


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("fleet")
    proc = run_fleet(workdir, "apply", capture=True)
    return workdir, proc


def test_apply_across_the_fleet_fails_only_the_broken_host(fleet):
    workdir, proc = fleet
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out[-4000:]  # ansible-playbook: some hosts failed
    rc = recap(out)
    assert set(rc) == set(HOSTS)
    for host in HOSTS:
        assert rc[host]["unreachable"] == 0
        assert rc[host]["failed"] == (1 if host == BROKEN else 0), (host, out[-4000:])
    mans = latest_manifests(workdir / "archive")
    assert {h: m["ok"] for h, m in mans.items()} == {h: h != BROKEN for h in HOSTS}
    assert mans[BROKEN]["failed_step"]["id"] == "runtime"
    for host, man in mans.items():
        assert man["root"] == str(workdir / "roots" / host) and man["mode"] == "apply"
    # the summary printed by the play names the broken host's failing step, in both languages
    assert re.search(rf"{BROKEN}\s+FAILED", out) and f"{BROKEN}: [2 runtime] TOML" in out
    assert "TOML syntax error" in out


def test_each_install_mode_ran_its_own_interpreter(fleet):
    workdir, _ = fleet
    mans = latest_manifests(workdir / "archive")
    preinstalled = [h for h, how in HOSTS.items() if how == "preinstalled"]
    wheelhouse = [h for h, how in HOSTS.items() if how == "wheelhouse"]
    assert preinstalled and wheelhouse
    for host in preinstalled:  # this interpreter, this checkout
        assert mans[host]["host"]["executable"] == sys.executable
        assert mans[host]["host"]["package_dir"] == str(Path(__import__("runbook_lib").__file__).parent)
    for host in wheelhouse:  # a venv of its own, installed offline
        venv_python = workdir / "hosts" / host / "venv" / "bin" / "python"
        assert mans[host]["host"]["executable"] == str(venv_python)
        site = subprocess.run([str(venv_python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True, cwd="/").stdout.strip()
        # the run imported the copy installed from the wheelhouse, not this checkout
        assert mans[host]["host"]["package_dir"] == f"{site}/runbook_lib"


def test_summary_on_the_controller_shows_the_broken_host(fleet):
    workdir, _ = fleet
    proc = runbook("summary", workdir / "archive")
    assert proc.returncode == 1
    row = next(line for line in proc.stdout.splitlines() if line.startswith(BROKEN + " "))
    assert row.split()[1] == "FAILED" and row.split()[5] == "FAIL"  # column "2 runtime"
    md = runbook("summary", workdir / "archive", "--format", "markdown")
    assert md.returncode == 1 and f"| {BROKEN} | FAILED |" in md.stdout


def test_check_mode_afterwards_passes_the_applied_hosts_and_keeps_both_runs(fleet):
    workdir, _ = fleet
    # the wheelhouse the apply run built, as it is (the role's own switch): the second run reinstalls nothing
    proc = run_fleet(workdir, "check", True, "-e", "runbook_wheelhouse_build=false")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out[-4000:]
    mans = latest_manifests(workdir / "archive")
    assert {h: (m["mode"], m["ok"]) for h, m in mans.items()} == {
        h: ("check", h != BROKEN) for h in HOSTS}
    for host in HOSTS:
        assert len(list((workdir / "archive" / host).iterdir())) == 2  # the apply run is still there
    # check wrote nothing: every applied host's steps are all passed or skipped
    for host in HOSTS:
        if host != BROKEN:
            assert {s["status"] for s in mans[host]["steps"]} <= {"passed", "skipped"}, mans[host]["steps"]
