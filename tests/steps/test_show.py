"""What a step shows read back from disk (runbook_lib/steps/_show.py, each step's `evidence`): each toolkit step
shows its own file by its lab path, exactly as the disk holds it (a student's spelling included) and nothing for a
file that is not there; steps 2 and 3 show the runtime's table as tomllib read it, one key a line, a sub-table's
keys dotted. In process, through a check run on a lab root, so `make mutate` sees them."""

from __future__ import annotations

import pytest

from grading_helpers import TOOLKIT, check, lab_root

FILES = {4: "default.txt", 5: "parsed.txt", 6: "cdi-keys.txt", 7: "runtimeclass.yaml", 8: "report.txt"}


@pytest.mark.parametrize("step", sorted(FILES))
def test_each_toolkit_step_shows_its_own_file_as_the_disk_holds_it(tmp_path, step):
    root = lab_root(tmp_path)
    path = root / TOOLKIT / FILES[step]
    path.write_text(path.read_text().rstrip("\n"))  # the student's copy, without its final newline (still right)
    result = check(root)[step]
    assert result.evidence == {f"/{TOOLKIT}/{FILES[step]}": path.read_text()}, result.evidence
    path.unlink()
    assert check(root)[step].evidence == {}  # nothing read, nothing shown


def test_the_runtime_table_is_shown_one_key_a_line_its_sub_tables_dotted(tmp_path):
    results = check(lab_root(tmp_path))
    shown = ['runtime_type = "io.containerd.runc.v2"', 'options.BinaryName = "/usr/bin/nvidia-container-runtime"',
             "options.SystemdCgroup = true"]
    for step in (2, 3):
        assert {k: v.split("\n") for k, v in results[step].evidence.items()} == \
            {"/etc/containerd/config.toml (tomllib)": shown}


def test_a_nodes_facts_are_shown_for_what_they_are_never_at_a_toolkit_path(tmp_path):
    """A node has no answer files: what step 4 and step 5 read from its config is shown under what it is."""
    import shutil
    from pathlib import Path

    from helpers import finished_run

    root = tmp_path / "aks-gpu"
    shutil.copytree(Path(__file__).parents[1] / "fixtures" / "realworld" / "aks-gpu", root)
    rb = finished_run(root, profile="node", default_runtime="keep", mode="check")
    assert rb.results["default"].evidence == {
        "기본 런타임 (노드에서 읽음) / the default runtime (read from the node)":
            "DEFAULT=nvidia-container-runtime\nWHY=runtimeclass\n"}
    assert rb.results["parse"].evidence == {
        "tomllib 로 읽은 설정 (노드에서 읽음) / the config read with tomllib (from the node)":
            "VERSION=3\nRUNTIMES=nvidia-container-runtime,untrusted\n"}
