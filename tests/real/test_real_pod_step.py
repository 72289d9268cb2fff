"""The notebook's pod step with `-p smoke sandbox`, run by papermill as a user runs it: on a lab root it
passes and shows the pod, the handler and the stand-in's record; in check mode a student's broken state fails
with containerd's own words, a correct one passes, and the root is byte for byte what it was. Nothing of
the run (containerd, a shim, a mount, a cgroup, the temp folder) is left afterwards.

The same check-mode cases with `containerd_bin` naming each pinned containerd 2.x, on a version-3 config
(every 2.x reads it) and a version-4 one (2.3 and later): 2.x words a string boolean its own way."""
import nbformat
import papermill
import pytest

import realenv
from helpers import run_notebook, step_records, tree_state
from paths import FIXTURES
from pod_traces import leaves_nothing

pytestmark = pytest.mark.real
pytest.importorskip("grpc")
CONFIG = "etc/containerd/config.toml"
RUNTIMECLASS = "root/toolkit/runtimeclass.yaml"
# the configs a containerd 2.x node starts from: its documentation's version 3, and 2.3's version 4
V3_BASE = FIXTURES / "containerd" / "containerd-2.0-docs-config-v3.toml"
V4_BASE = FIXTURES / "distro" / "containerd-2.3-config-v4.toml"


@pytest.fixture
def lab(containerd, tmp_path):
    realenv.need_program("ctr")
    realenv.need_program("runc")
    from runbook_lib.containerd import oci_layout
    if oci_layout.busybox_static() is None:
        realenv.missing("정적 busybox 가 없습니다 (busybox-static) / busybox-static is not installed")
    root = tmp_path / "root"
    root.mkdir()
    with leaves_nothing():
        yield root


def applied(root):
    """A student's root after a correct apply (the library's run, no notebook: that is tested below)."""
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run
    rb = Run(validate(root=str(root))).start()
    try:
        rb.run_all()
        assert rb.ok()
    finally:
        rb.finish()
    return root


def check(root, **params):
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run
    rb = Run(validate(root=str(root), mode="check", smoke="sandbox", **params)).start()
    try:
        rb.run_all()
    finally:
        rb.finish()
    return rb.results["pod"]


def test_apply_with_smoke_sandbox_passes_and_shows_the_pod(lab, tmp_path):
    nb = run_notebook(lab, tmp_path / "o.ipynb", smoke="sandbox")
    pod = step_records(nb)["pod"]
    assert pod["status"] == "passed", pod
    (shown,) = pod["evidence"].values()
    sandbox = shown.splitlines()[0].rsplit(" ", 1)[1]
    assert len(sandbox) == 64 and sandbox[:13] in pod["message"]["en"] and sandbox[:13] in pod["message"]["ko"]
    assert "핸들러 / handler: nvidia" in shown and "BinaryName: /usr/bin/nvidia-container-runtime → " in shown
    assert f"--systemd-cgroup create {sandbox[:12]}…" in shown and f"--systemd-cgroup start {sandbox[:12]}…" in shown
    assert "left behind: 없음 / nothing" in shown
    check_cell = [c for c in nb.cells if c.cell_type == "code" and 'rb.expect("pod")' in c.source][0]
    text = "".join(o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in check_cell.outputs)
    for assertion in ('✓ handler == "nvidia"', "✓ binary_called == true", "✓ systemd_cgroup_flag == true",
                      "✓ default_ran_it == false", "✓ left == []"):
        assert assertion in text, text


def test_check_mode_fails_a_string_systemd_cgroup_with_containerds_words(lab, tmp_path):
    root = applied(lab)
    config = root / CONFIG
    config.write_text(config.read_text().replace("SystemdCgroup = true", 'SystemdCgroup = "true"'))
    before = tree_state(root)
    out = tmp_path / "o.ipynb"
    with pytest.raises(papermill.PapermillExecutionError):  # check mode fails the run at its last cell
        run_notebook(root, out, mode="check", smoke="sandbox")
    records = step_records(nbformat.read(str(out), as_version=4))
    pod = records["pod"]
    # step 3's mistake, which containerd's refusal only says again: counted there once (issue 41), its fix there
    assert records[3]["status"] == "failed" and pod["status"] == "blocked"
    (problem,) = pod["problems"]
    assert problem["code"] == "depends.earlier" and problem["values"]["step"] == 3
    assert "Can't convert true(string) to bool" in problem["what"]["en"] and "Can't convert true(string) to bool" in problem["what"]["ko"]
    assert problem["fix"]["en"] == "follow step 3's fix."
    assert tree_state(root) == before


def test_check_mode_fails_a_handler_that_is_not_the_runtime(lab):
    root = applied(lab)
    rc = root / RUNTIMECLASS
    rc.write_text(rc.read_text().replace("handler: nvidia", "handler: nvidia-gpu"))
    before = tree_state(root)
    result = check(root)
    assert result.status == "blocked"  # step 7's mistake, containerd's refusal says it again
    assert [(p.code, p.values["step"]) for p in result.problems] == [("depends.earlier", 7)]
    assert 'no runtime for "nvidia-gpu" is configured' in result.problems[0].what.en
    assert tree_state(root) == before


def test_check_mode_passes_a_correct_state_and_writes_nothing(lab):
    root = applied(lab)
    before = tree_state(root)
    result = check(root)
    assert result.status == "passed", [p.what.en for p in result.problems]
    assert tree_state(root) == before



def test_the_action_cell_run_again_after_a_fix_starts_a_new_pod(lab):
    """JupyterLab: the student sees containerd refuse the pod, fixes the file by hand and runs the cell again."""
    from runbook_lib import notebook as nb
    root = applied(lab)
    config = root / CONFIG
    config.write_text(config.read_text().replace("SystemdCgroup = true", 'SystemdCgroup = "true"'))
    rb = nb.start(root=str(root), mode="check", smoke="sandbox")
    try:
        refused = rb.try_pod(rb.plan("pod"))
        assert refused["sandbox_id"] is None and refused["binary_called"] is False
        config.write_text(config.read_text().replace('SystemdCgroup = "true"', "SystemdCgroup = true"))
        again = rb.try_pod(rb.plan("pod"))
        assert again["sandbox_id"] and again["binary_called"] is True and again["left"] == []
        with rb.expect("pod") as expect:
            expect.equal(again, "binary_called", True)
        assert rb.results["pod"].status == "passed"
    finally:
        rb.finish()


def _layouts_2x():
    """(containerd 2.x release, config version): version 3 for each, version 4 for those that read it."""
    out = []
    for version in realenv.containerd2_versions():
        out.append(pytest.param((version, 3), id=f"{version}-v3"))
        if tuple(int(n) for n in version.split(".")[:2]) >= (2, 3):
            out.append(pytest.param((version, 4), id=f"{version}-v4"))
    return out


@pytest.fixture(params=_layouts_2x())
def lab_2x(request, tmp_path):
    """A root applied on a containerd 2.x node's config, and that containerd (its own shim beside it)."""
    release, config_version = request.param
    containerd = realenv.need_containerd(release)
    realenv.need_own_shim(containerd)
    realenv.need_root()
    realenv.need_program("unshare")
    realenv.need_program("ctr")
    realenv.need_program("runc")
    from runbook_lib.containerd import oci_layout
    if oci_layout.busybox_static() is None:
        realenv.missing("정적 busybox 가 없습니다 (busybox-static) / busybox-static is not installed")
    root = tmp_path / "root"
    (root / CONFIG).parent.mkdir(parents=True)
    (root / CONFIG).write_bytes((V3_BASE if config_version == 3 else V4_BASE).read_bytes())
    with leaves_nothing():
        yield containerd, applied(root)


def test_containerd_2x_passes_a_correct_state_and_writes_nothing(lab_2x):
    containerd, root = lab_2x
    before = tree_state(root)
    result = check(root, containerd_bin=containerd)
    assert result.status == "passed", [p.what.en for p in result.problems]
    assert containerd.label in result.evidence["smoke sandbox"] and tree_state(root) == before


def _failed_after_edit(lab_2x, rel: str, old: str, new: str):
    """The pod step in check mode after one edit of a lab file: its result, blocked by the step that edit fails
    (containerd's refusal says that step's mistake again: counted there once, issue 41)."""
    containerd, root = lab_2x
    path = root / rel
    path.write_text(path.read_text().replace(old, new))
    result = check(root, containerd_bin=containerd)
    assert result.status == "blocked"
    return result


def test_containerd_2x_refuses_a_string_systemd_cgroup_in_its_own_words(lab_2x):
    result = _failed_after_edit(lab_2x, CONFIG, "SystemdCgroup = true", 'SystemdCgroup = "true"')
    (problem,) = result.problems
    assert (problem.code, problem.values["step"]) == ("depends.earlier", 3)
    said = "toml: cannot decode TOML string into struct field options.Options.SystemdCgroup of type bool"
    assert said in problem.what.en and said in problem.what.ko and problem.fix.en == "follow step 3's fix."


def test_containerd_2x_refuses_a_handler_that_is_not_the_runtime(lab_2x):
    result = _failed_after_edit(lab_2x, RUNTIMECLASS, "handler: nvidia", "handler: nvidia-gpu")
    assert [(p.code, p.values["step"]) for p in result.problems] == [("depends.earlier", 7)]
    assert 'no runtime for "nvidia-gpu" is configured' in result.problems[0].what.en


def test_the_notebook_in_check_mode_with_containerd_2x_shows_the_pod_and_passes(lab_2x, tmp_path):
    containerd, root = lab_2x
    before = tree_state(root)
    nb = run_notebook(root, tmp_path / "o.ipynb", mode="check", smoke="sandbox", containerd_bin=str(containerd))
    pod = step_records(nb)["pod"]
    assert pod["status"] == "passed", pod
    (shown,) = pod["evidence"].values()
    assert f"containerd: {containerd} (버리는 데몬 / throw-away daemon)" in shown and "left behind: 없음 / nothing" in shown
    assert tree_state(root) == before
