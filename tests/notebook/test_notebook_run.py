"""The real notebook, executed by papermill against temporary roots, as users run it."""

import tomllib

import nbformat
import pytest
import yaml
from types import SimpleNamespace

from helpers import LAB_BASE, plan_diff, put_course_fixture, run_notebook, step_records, tree_state
from runbook_lib.engine.result import read_record, record_text
from runbook_lib.steps import pod

TOOLKIT = "root/toolkit"


@pytest.fixture(scope="module")
def course_run(tmp_path_factory):
    """A root holding the course fixture, run once: the state the seed describes."""
    root = tmp_path_factory.mktemp("course")
    marker = LAB_BASE.read_bytes() + b"# course fixture marker\n"
    put_course_fixture(root, marker)
    nb = run_notebook(root, root.parent / "out.ipynb")
    return root, nb, marker


def test_all_eight_steps_pass_and_the_summary_is_there(course_run):
    root, nb, _ = course_run
    records = step_records(nb)
    assert sorted(k for k in records if isinstance(k, int) and k <= 8) == list(range(1, 9))
    assert all(records[n]["status"] in ("changed", "unchanged") for n in range(1, 9))
    added = [line for line in plan_diff(nb, "runtime") if line.startswith("+") and not line.startswith("+++")]
    assert records[2]["status"] == "changed" and len(added) >= 5 and "diff" not in records[2]


def test_the_course_fixture_is_the_one_copied_and_every_base_line_is_kept(course_run):
    root, _, marker = course_run
    config = (root / "etc/containerd/config.toml").read_text()
    assert "# course fixture marker" in config
    base_lines = marker.decode().splitlines()
    lines = config.splitlines()
    it = iter(lines)
    assert all(any(line == x for x in it) for line in base_lines), "base lines must all be there, in order"
    data = tomllib.loads(config)
    cri = data["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]
    assert cri["default_runtime_name"] == "runc"
    assert cri["runtimes"]["nvidia"] == {"runtime_type": "io.containerd.runc.v2",
                                         "options": {"BinaryName": "/usr/bin/nvidia-container-runtime",
                                                     "SystemdCgroup": True}}


def test_the_five_toolkit_files_exactly(course_run):
    root, _, _ = course_run
    tk = root / TOOLKIT
    assert (tk / "default.txt").read_text() == "DEFAULT=runc\nWHY=runtimeclass\n"
    assert (tk / "parsed.txt").read_text() == "VERSION=2\nRUNTIMES=runc,nvidia\n"
    assert (tk / "cdi-keys.txt").read_text() == "cdiVersion\nkind\ndevices\ncontainerEdits\n"
    assert yaml.safe_load((tk / "runtimeclass.yaml").read_text()) == {
        "apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "nvidia"}, "handler": "nvidia"}
    assert (tk / "report.txt").read_text() == ("CONFIG_VERSION=2\nRUNTIME=nvidia\nRUNTIME_TYPE=io.containerd.runc.v2\n"
                                               "SYSTEMD_CGROUP=true\nHANDLER=nvidia\n")
    spec = yaml.safe_load((root / "etc/cdi/nvidia.yaml").read_text())
    assert spec["kind"] == "nvidia.com/gpu" and spec["devices"][0]["name"] == "all"


def test_second_run_changes_no_byte_and_says_unchanged(course_run, tmp_path):
    root, _, _ = course_run
    before = tree_state(root)
    nb = run_notebook(root, tmp_path / "second.ipynb")
    assert tree_state(root) == before
    records = step_records(nb)
    assert all(records[n]["status"] == "unchanged" for n in range(1, 9)), {n: records[n]["status"] for n in range(1, 9)}


def test_existing_config_is_kept_not_replaced_by_the_base(tmp_path):
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    own = ('version = 2\n# the node\'s own config\n[plugins."io.containerd.grpc.v1.cri".containerd]\n'
           '  default_runtime_name = "runc"\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n'
           '  runtime_type = "io.containerd.runc.v2"\n')
    (root / "etc/containerd/config.toml").write_text(own)
    put_course_fixture(root)
    nb = run_notebook(root, tmp_path / "o.ipynb")
    text = (root / "etc/containerd/config.toml").read_text()
    assert text.startswith(own) and "sandbox_image" not in text
    # a pass says the file as found (issue 51), not the runbook's own action ("kept")
    assert step_records(nb)[1]["message"]["en"].startswith("/etc/containerd/config.toml: the containerd config is there")


def test_another_runtime_name_and_binary_flow_through_every_file(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    run_notebook(root, tmp_path / "o.ipynb", runtime_name="gpu-rt", binary_name="/opt/nv/bin/ncr", systemd_cgroup=True)
    data = tomllib.loads((root / "etc/containerd/config.toml").read_text())
    rt = data["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]
    assert "nvidia" not in rt and rt["gpu-rt"]["options"]["BinaryName"] == "/opt/nv/bin/ncr"
    tk = root / TOOLKIT
    assert (tk / "parsed.txt").read_text() == "VERSION=2\nRUNTIMES=runc,gpu-rt\n"
    rc = yaml.safe_load((tk / "runtimeclass.yaml").read_text())
    assert rc["metadata"]["name"] == rc["handler"] == "gpu-rt"
    assert "RUNTIME=gpu-rt\n" in (tk / "report.txt").read_text() and "HANDLER=gpu-rt\n" in (tk / "report.txt").read_text()


def test_bad_parameter_stops_before_touching_the_root(tmp_path):
    import papermill
    root = tmp_path / "root"
    root.mkdir()
    with pytest.raises(papermill.PapermillExecutionError) as err:
        run_notebook(root, tmp_path / "o.ipynb", runtime_name="Bad_Name")
    assert "DNS-1123" in str(err.value)
    assert list(root.iterdir()) == []
    # the cell shows the bilingual message and its fix, not a Python traceback
    import json
    (error,) = [o for c in json.loads((tmp_path / "o.ipynb").read_text())["cells"] for o in c.get("outputs", [])
                if o["output_type"] == "error"]
    shown = "\n".join(error["traceback"])
    assert "DNS-1123" in shown and "고치기: " in shown and "fix: " in shown
    assert "Traceback" not in shown and "File " not in shown


def test_report_values_come_from_the_files_not_the_parameters(tmp_path):
    """Break the RuntimeClass on disk between runs: the report must follow the file, and the check must fail."""
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run
    from runbook_lib.steps import report, runtimeclass
    root = tmp_path / "root"
    root.mkdir()
    rb = Run(validate(root=str(root))).start()
    rb.preflight()
    for step in rb.steps[:7]:
        assert not rb.run(step).failed
    rc = root / TOOLKIT / "runtimeclass.yaml"
    rc.write_text(rc.read_text().replace("handler: nvidia", "handler: nvidia-typo"))
    assert "HANDLER=nvidia-typo" in report.report(rb)
    assert rb.verdict(runtimeclass.STEP).failed


def test_a_check_cell_shows_its_reads_checks_and_record_in_one_output(course_run):
    """One output per check cell: what it read (tomllib, the table's path), its checks and the step's record."""
    _, nb, _ = course_run
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code" and 'rb.expect("runtime")' in "".join(c["source"]))
    (out,) = cell["outputs"]
    text = "".join(out["data"]["text/plain"])
    record = out["data"]["application/vnd.runbook.step+json"]
    assert isinstance(record, str), "a record is stored as its JSON text: every save copies one string"
    assert read_record(record)["step"] == 2 and read_record(record)["status"] == "changed"
    assert text.index("tomllib: /etc/containerd/config.toml (version 2)") < text.index("version 2 → ") \
        < text.index("확인 / checks") < text.index("[CHANGED] 2.")


def test_a_plan_shows_its_diff_once_in_html_and_counts_it_in_text(course_run):
    _, nb, _ = course_run
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code" and 'rb.plan("runtime")' in "".join(c["source"]))
    plan = cell["outputs"][0]["data"]
    text = "".join(plan["text/plain"])
    added = [line for line in plan_diff(nb, "runtime") if line.startswith("+") and not line.startswith("+++")]
    assert f"diff (HTML): /etc/containerd/config.toml +{len(added)} -0" in text and "+++ " not in text
    assert "BinaryName = \"/usr/bin/nvidia-container-runtime\"" in "".join(plan["text/html"])


def test_a_skipped_pod_says_why_once_in_its_action_cell(course_run):
    """smoke off (the default): the pod's plan says why no pod is made; the action cell does not say it again."""
    _, nb, _ = course_run
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code" and "rb.try_pod(plan)" in "".join(c["source"]))
    texts = ["".join(o["data"]["text/plain"]) for o in cell["outputs"]]
    why = pod.skipped(SimpleNamespace(p=SimpleNamespace(smoke="off")))
    assert len(texts) == 1 and texts[0].startswith("계획 / plan — pod.")
    assert [t.count(why.ko) for t in texts] == [1] and [t.count(why.en) for t in texts] == [1]


def test_a_record_reads_back_as_stored_now_and_as_an_earlier_runbook_stored_it():
    record = {"step": 3, "status": "failed", "message": {"ko": "옵션", "en": "options"}, "problems": []}
    stored = record_text(record)
    assert isinstance(stored, str) and "옵션" in stored  # Korean kept as it is, not \u escapes
    assert read_record(stored) == record
    assert read_record(record) == record  # a notebook from before, or re-saved by a tool that parsed it
    assert nbformat.validate(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(outputs=[
        nbformat.v4.new_output("display_data", data={"application/vnd.runbook.step+json": stored})])])) is None
