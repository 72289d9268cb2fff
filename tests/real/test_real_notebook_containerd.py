"""The notebook's step 9, run by papermill as a user runs it, asking the real containerd.

With `-p containerd_bin` the step shows what containerd reads for the runtime next to what the runbook
expects; when containerd rejects the file, the step fails with containerd's own words and line.
"""
import re
import shutil

import papermill
import pytest

import realenv
from helpers import run_notebook, step_records
from paths import BROKEN

pytestmark = pytest.mark.real
CONFIG = "etc/containerd/config.toml"


def _table(record, release: str = "1.") -> str:
    (title, table), = record["evidence"].items()
    assert title.startswith(f"containerd {release}") and "config dump" in title  # containerd's own version, asked
    return table


def test_step_9_shows_containerds_reading_and_passes(every_containerd, tmp_path):
    """Step 9 can name any real containerd, 1.6 or a 2.x, with containerd_bin, and reads its version."""
    root = tmp_path / "root"
    root.mkdir()
    nb = run_notebook(root, tmp_path / "o.ipynb", containerd_bin=every_containerd)
    step = step_records(nb)[9]
    release = every_containerd.label if every_containerd.is_2x else "1.6."
    table = _table(step, release)
    assert step["status"] == "passed", step
    rows = {line.split()[0]: line for line in table.splitlines()[1:]}
    assert rows["runtimes.nvidia.runtime_type"].count('"io.containerd.runc.v2" (string)') == 2
    assert rows["runtimes.nvidia.options.BinaryName"].count('"/usr/bin/nvidia-container-runtime" (string)') == 2
    assert rows["runtimes.nvidia.options.SystemdCgroup"].count("true (boolean)") == 2
    assert re.search(r'not nvidia +"runc" \(string\) +✓$', rows["default_runtime_name"]), rows
    assert all(line.endswith("✓") for line in rows.values()), rows
    assert "SystemdCgroup = true (boolean)" in step["message"]["en"]


def test_step_9_follows_the_parameters_not_a_fixed_answer(containerd, tmp_path):
    """Another runtime name and binary: containerd's reading must show those, read from the written file."""
    root = tmp_path / "root"
    root.mkdir()
    nb = run_notebook(root, tmp_path / "o.ipynb", containerd_bin=containerd, runtime_name="gpu-rt",
                      binary_name="/opt/nv/bin/ncr", systemd_cgroup=False)
    step = step_records(nb)[9]
    assert step["status"] == "passed", step
    table = _table(step)
    assert table.count('"/opt/nv/bin/ncr" (string)') == 2 and "runtimes.gpu-rt.options.SystemdCgroup" in table
    assert "SystemdCgroup = false (boolean)" in step["message"]["en"]


def _check_mode_on(tmp_path, containerd, config_text: str):
    root = tmp_path / "root"
    (root / CONFIG).parent.mkdir(parents=True)
    (root / CONFIG).write_text(config_text)
    out = tmp_path / "o.ipynb"
    with pytest.raises(papermill.PapermillExecutionError):  # check mode fails the run when a step failed
        run_notebook(root, out, mode="check", containerd_bin=containerd)
    import nbformat
    return step_records(nbformat.read(str(out), as_version=4))[9]


def test_step_9_fails_with_containerds_own_words_when_it_rejects(containerd, tmp_path):
    step = _check_mode_on(tmp_path, containerd, (BROKEN / "duplicate-key.toml").read_text())
    assert step["status"] == "failed"
    problem, = step["problems"]
    said = ("failed to load TOML: /etc/containerd/config.toml: (32, 11): The following key was defined twice: "
            "plugins.io.containerd.grpc.v1.cri.containerd.runtimes.nvidia.runtime_type")
    assert said in problem["what"]["en"] and said in problem["what"]["ko"]
    assert (problem["path"], problem["line"]) == ("/etc/containerd/config.toml", 32)
    assert "config dump" in problem["fix"]["en"]


def test_step_9_catches_what_our_parsers_let_through(containerd, tmp_path):
    """A version-1 registry table pasted into a version-2 file: nothing in the runtime tables is wrong, TOML is
    valid, and containerd 1.6 refuses to start. Only asking containerd shows it."""
    from paths import GOOD_CONFIG
    pasted = GOOD_CONFIG.read_text() + '\n[plugins.cri.registry.mirrors."docker.io"]\n  endpoint = ["https://mirror.local"]\n'
    step = _check_mode_on(tmp_path, containerd, pasted)
    assert step["status"] == "failed"
    problem, = step["problems"]
    assert 'invalid plugin key URI "cri" expect io.containerd.x.vx' in problem["what"]["en"]
    assert "plugins.cri" in problem["fix"]["en"] and "plugins.cri" in problem["fix"]["ko"]


def test_without_containerd_on_path_a_real_node_says_so(tmp_path, monkeypatch):
    """root / without containerd on PATH: skipped, and the reason names PATH (no papermill: nothing is written)."""
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run
    from runbook_lib.steps import ask_containerd
    if shutil.which("containerd") is None:
        realenv.missing("containerd is not installed")
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH with no containerd on it
    rb = Run(validate(root="/", mode="check"))
    rb.preflight()
    result = rb.run(ask_containerd.STEP)
    assert result.status == "skipped" and "PATH" in result.message.en and "PATH" in result.message.ko
    monkeypatch.undo()
    again = Run(validate(root="/", mode="check"))
    again.preflight()
    assert again.run(ask_containerd.STEP).status != "skipped"  # on PATH again: it asks
