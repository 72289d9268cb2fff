"""The default_runtime parameter (issue 21): the node's default runtime is the node's. `keep` reports it and
never changes it nor advises against it; `runc` is the lab's graded rule; `auto` is keep on a real node (root
/) and runc in a lab root. A default that already is the wanted runtime (EKS GPU AMI, DGX, nvidia-ctk
--set-as-default) is found and left alone, byte for byte. And check and apply agree on another owner's runtime
(Talos): both refuse step 2, and no fix tells the user to overwrite that owner's binary."""
import shutil
from pathlib import Path

import pytest
from helpers import finished_run

from runbook_lib.engine.params import validate

REALWORLD = Path(__file__).parents[1] / "fixtures" / "realworld"
CONFIG = "etc/containerd/config.toml"


def _root(tmp_path, name):
    root = tmp_path / name
    shutil.copytree(REALWORLD / name, root)
    return root


def _run(root, **params):
    return finished_run(root, **params)


@pytest.mark.parametrize("rule, root, keeps", [("auto", "/", True), ("auto", "/srv/lab1", False),
                                               ("keep", "/srv/lab1", True), ("runc", "/", False)])
def test_auto_keeps_on_a_real_node_and_is_the_lab_rule_in_a_lab_root(rule, root, keeps):
    assert validate(root=root, default_runtime=rule).keeps_default is keeps


@pytest.mark.parametrize("name", ["eks-al2023-gpu", "dgx", "nvidia-ctk-default"])
def test_a_default_that_already_is_nvidia_is_left_alone(tmp_path, name):
    root = _root(tmp_path, name)
    original = (root / CONFIG).read_bytes()
    for mode in ("apply", "check"):
        rb = _run(root, mode=mode, default_runtime="keep")
        assert rb.results["runtime"].failed is False and rb.results["default"].failed is False, mode
        assert (root / CONFIG).read_bytes() == original
        fixes = [p.fix.en for r in rb.results.values() for p in r.problems if p.fix]
        assert not [f for f in fixes if "default_runtime_name" in f], fixes


def test_the_lab_rule_still_refuses_a_default_that_is_nvidia(tmp_path):
    rb = _run(_root(tmp_path, "eks-al2023-gpu"), default_runtime="runc")
    assert [p.code for _, p in rb.refusals()] == ["default.is_runtime"]


def test_aks_gpu_keeps_its_nvidia_default_and_gets_the_runtime_beside_it(tmp_path):
    root = _root(tmp_path, "aks-gpu")
    rb = _run(root, default_runtime="keep")
    assert rb.ok(), [(n, p.code) for n, r in rb.results.items() for p in r.problems]
    text = (root / CONFIG).read_text()
    assert 'default_runtime_name = "nvidia-container-runtime"' in text
    assert '[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia]' in text  # where 2.x reads it


def test_check_and_apply_agree_on_another_owners_runtime(tmp_path):
    root = _root(tmp_path, "talos")
    applied, checked = _run(root, profile="node"), _run(root, mode="check", profile="node")
    assert [p.code for p in applied.results["runtime"].problems] == ["runtime.other_binary"]
    assert [p.code for p in checked.results["runtime"].problems] == ["runtime.other_binary"]
    assert [p.code for p in checked.results["options"].problems] == ["depends.earlier"]
    fixes = [p.fix.en for r in checked.results.values() for p in r.problems if p.fix]
    assert not [f for f in fixes if 'BinaryName = "/usr/bin/nvidia-container-runtime"' in f], fixes


# --- default.txt judged by what the config gives once every step is right (in process, for `make mutate`) ------

def _lab_with_default(tmp_path, default: str):
    from grading_helpers import GOOD, TOOLKIT, lab_root

    config = GOOD.read_text().replace('default_runtime_name = "runc"', f'default_runtime_name = "{default}"')
    if default not in ("runc", "nvidia"):  # a default of its own needs its own table (step 5)
        config = config.replace("runtimes.runc]", f"runtimes.{default}]").replace(
            "runtimes.runc.options]", f"runtimes.{default}.options]")
    root = lab_root(tmp_path, config.encode())
    return root, root / TOOLKIT / "default.txt"


@pytest.mark.parametrize("default, says", [("crun", "crun"), ("nvidia", "runc")])
def test_a_default_txt_made_by_hand_after_its_plan_failed_is_judged_by_the_configs_default(tmp_path, default, says):
    """`mkdir default.txt` by mistake, then the file written by hand and the check cell run again: it is judged
    against the default the config keeps (crun, the node's own) or, where step 4 fails (nvidia made the
    default), the one it has once fixed (runc)."""
    from grading_helpers import a_folder_in_its_place, check_cell_run_twice, written_by_hand

    root, path = _lab_with_default(tmp_path, default)
    first, again = check_cell_run_twice(root, "default", written_by_hand(a_folder_in_its_place(path),
                                                                        "DEFAULT=other\nWHY=runtimeclass\n"))
    assert "write.failed.folder_stands_where_file" in first
    (wrong,) = [p for p in again.problems if p.is_a("file.differs")]
    assert wrong.values["expected"] == f"DEFAULT={says} / WHY=runtimeclass"
    _, again = check_cell_run_twice(root, "default", written_by_hand(a_folder_in_its_place(path),
                                                                    f"DEFAULT={says}\nWHY=runtimeclass\n"))
    assert not any(p.code.startswith("file.") for p in again.problems), again.text()


def test_an_empty_config_is_judged_by_the_base_step_1_copies_into_it(tmp_path):
    """The config is empty (step 1 fails: it copies the lab's base into it); the base keeps crun as its
    default, so default.txt saying crun is right: step 4 judges the config as step 1 leaves it, not the empty
    file's built-in runc."""
    from grading_helpers import CONFIG, GOOD, TOOLKIT, check, lab_root
    from runbook_lib.engine.params import DEFAULTS

    root = lab_root(tmp_path)
    base = root / DEFAULTS["base_config"].lstrip("/")
    base.parent.mkdir(parents=True, exist_ok=True)
    base.write_text(GOOD.read_text().replace('default_runtime_name = "runc"', 'default_runtime_name = "crun"')
                    .replace("runtimes.runc]", "runtimes.crun]").replace("runtimes.runc.options]", "runtimes.crun.options]"))
    (root / CONFIG).write_text("")
    (root / TOOLKIT / "default.txt").write_text("DEFAULT=crun\nWHY=runtimeclass\n")
    results = check(root)
    assert [p.code for p in results[1].problems] == ["prepare.config_empty"]
    assert results[4].problems == [] and not results[4].failed, results[4].text()


# --- auto on a real node's "/", through the user's own command (issue 44) -------------------------------------

# The node's own CDI spec (tests/helpers.py): the node runs with a GPU node's /dev (papermill_as_node's gpus).
from helpers import NODE_SPEC  # noqa: E402


def _node(tmp_path, name):
    node = _root(tmp_path, name)
    (node / "etc/cdi").mkdir(parents=True)
    (node / "etc/cdi/nvidia.yaml").write_text(NODE_SPEC)
    return node


def test_a_containerd_running_on_the_machine_is_not_the_nodes(tmp_path):
    """The node's processes are its own (tests/node_chroot.py): a containerd daemon running on the machine meanwhile
    (another test's throw-away daemon, its --config in that test's folder) is not in the node's /proc, where the
    runbook looks for the node's containerd (containerd/node.py). It was: under load the papermill tests below
    took such a daemon's config for the node's and wrote the runtime there (step 2 "changed"). The stand-in
    daemon is Python under the name containerd, sleeping with a daemon's flags; the node's own run lists what it
    finds there, the way the runbook does."""
    import subprocess
    import sys

    from node_chroot import run_as_node

    from runbook_lib.containerd.node import running_containerds

    (tmp_path / "bin").mkdir()
    (tmp_path / "bin/containerd").symlink_to(sys.executable)
    (tmp_path / "sleeper.py").write_text("import sys, time\nsys.stdout.write('up\\n')\nsys.stdout.flush()\ntime.sleep(300)\n")
    elsewhere = tmp_path / "elsewhere" / "config.toml"
    daemon = subprocess.Popen([str(tmp_path / "bin/containerd"), "-u", str(tmp_path / "sleeper.py"), "--config",
                               str(elsewhere)], stdout=subprocess.PIPE)
    try:
        assert daemon.stdout.readline() == b"up\n"
        assert daemon.pid in [d.pid for d in running_containerds()], "the machine's /proc shows it"
        node = _node(tmp_path, "nvidia-ctk-default")
        seen = run_as_node(node, [sys.executable, "-c", "import os; from runbook_lib.containerd.node import "
                                  "running_containerds as r; print(os.getpid(), [d.config for d in r()])"])
        assert seen.returncode == 0, seen.stderr
        pid, configs = seen.stdout.split(" ", 1)
        assert configs.strip() == "[]", seen.stdout
        assert pid == "1", "the command is the first process of the node's own PID namespace"
    finally:
        daemon.kill()
        daemon.wait()

@pytest.mark.parametrize("name", ["dgx", "nvidia-ctk-default"])
def test_auto_on_a_nodes_root_keeps_an_nvidia_default_through_papermill(tmp_path, name):
    """`papermill notebooks/run.ipynb out.ipynb -p root /` with the default parameters (default_runtime auto) on a
    node whose default already is nvidia (DGX OS, `nvidia-ctk runtime configure --set-as-default`): the node's
    rule, so nothing is refused and the config keeps its bytes. The root really is "/" (a mount namespace of its
    own, tests/node_chroot.py): the lab's rule there refused the node with "default_runtime_name = runc" as its
    fix, and every other test passed `keep` explicitly (issue 44's second survivor)."""
    import json

    from helpers import step_records
    from node_chroot import papermill_as_node

    node = _node(tmp_path, name)
    original = (node / CONFIG).read_bytes()
    proc, out = papermill_as_node(node, gpus=1)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    steps = step_records(json.loads(out.read_text()))
    assert steps[2]["status"] == "unchanged", "the nvidia runtime the default names is already there"
    assert steps[4]["status"] not in ("failed", "skipped"), steps[4]
    assert [p["code"] for s in steps.values() for p in s["problems"] if p["severity"] != "warning"] == []
    assert (node / CONFIG).read_bytes() == original
    assert "default_runtime_name = \"nvidia\"" in (node / CONFIG).read_text()


def test_auto_on_a_nodes_root_never_edits_an_nvidia_default_it_would_write_otherwise(tmp_path):
    """The same node whose nvidia default lacks `SystemdCgroup`: containerd reads false, its zero value, and
    systemd_cgroup auto takes the default runtime's value as containerd reads it, so the node is right as it is
    and the run passes with the config byte for byte (issue 51: "a right node is refused"). Asked for the systemd
    driver outright, the default's table is still the node's: the run leaves it byte for byte and says what is
    missing (step 3's finding, fixed by hand), where the lab's rule would have rewritten the table every pod of
    the node runs through (issue 44's audit)."""
    import json

    from helpers import step_records
    from node_chroot import papermill_as_node

    node = _node(tmp_path, "nvidia-ctk-default")
    text = (node / CONFIG).read_text()
    kept = text.replace('BinaryName = "/usr/bin/nvidia-container-runtime"\n            SystemdCgroup = true',
                        'BinaryName = "/usr/bin/nvidia-container-runtime"')
    assert kept != text
    (node / CONFIG).write_text(kept)
    proc, out = papermill_as_node(node, gpus=1)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    steps = step_records(json.loads(out.read_text()))
    assert steps[3]["status"] == "unchanged" and steps[3]["problems"] == []
    assert (node / CONFIG).read_text() == kept
    proc, out = papermill_as_node(node, "-p", "systemd_cgroup", "True", gpus=1)
    assert proc.returncode != 0, "the run stops at the missing option"
    steps = step_records(json.loads(out.read_text()))
    assert [p["code"] for p in steps[3]["problems"]] == ["options.systemd_cgroup.missing"]
    assert (node / CONFIG).read_text() == kept


def test_a_nodes_default_runtime_is_said_and_kept_as_its_config_names_it(tmp_path):
    """Step 4 on a node whose default is not runc: its words and its evidence (default.txt's lines, read from the
    node's config, never the plan's) name that default."""
    root = _root(tmp_path, "aks-gpu")
    rb = _run(root, mode="check", profile="node", default_runtime="keep")
    said = rb.results["default"].message
    assert (said.en, said.ko) == ("the default runtime containerd reads is nvidia-container-runtime (default_runtime_name).",
                                  "containerd 가 읽는 기본 런타임은 nvidia-container-runtime 입니다 (default_runtime_name).")
    assert rb.evidence_files[rb.tk("default.txt")] == b"DEFAULT=nvidia-container-runtime\nWHY=runtimeclass\n"
