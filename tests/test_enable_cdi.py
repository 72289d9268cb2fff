"""enable_cdi=True: containerd's CRI plugin is told to use the CDI spec's folder, in the same plan as the rest,
and containerd 1.6 still reads the result (it ignores the keys: it has no CDI); without it, nothing changes."""

import tomllib

from grading_helpers import GOOD, check, run_all
from helpers import tree_state
from reliability_helpers import assert_containerd_registered

CONFIG = "etc/containerd/config.toml"


def _root(tmp_path):
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_bytes(GOOD.read_bytes())
    return root


def test_enable_cdi_sets_the_keys_once_and_check_agrees(tmp_path):
    root = _root(tmp_path)
    results = run_all(root, enable_cdi=True)
    assert not any(r.failed for r in results.values()), [r.text() for r in results.values() if r.failed]
    cri = tomllib.loads((root / CONFIG).read_text())["plugins"]["io.containerd.grpc.v1.cri"]
    assert cri["enable_cdi"] is True and "cdi_spec_dirs" not in cri  # /etc/cdi is among the defaults
    assert (root / CONFIG).read_text().count("enable_cdi") == 1
    before = tree_state(root)
    again = run_all(root, enable_cdi=True)
    assert all(r.status in ("unchanged", "skipped", "passed") for r in again.values())
    assert {k: v for k, v in tree_state(root).items() if not k.startswith("run")} == \
        {k: v for k, v in before.items() if not k.startswith("run")}
    assert not any(r.failed for r in check(root, enable_cdi=True).values())
    assert_containerd_registered(root)  # the real containerd 1.6 still reads the file


def test_check_with_enable_cdi_names_what_is_missing(tmp_path):
    root = _root(tmp_path)
    run_all(root)
    results = check(root, enable_cdi=True)
    codes = {p.code for p in results[6].problems}
    assert results[6].failed and "cdi.disabled" in codes, results[6].text()


def test_without_enable_cdi_a_lab_root_says_nothing_about_cdi_settings(tmp_path):
    root = _root(tmp_path)
    results = run_all(root)
    assert "enable_cdi" not in (root / CONFIG).read_text()
    assert not [p for p in results[6].problems if p.code.startswith("cdi-")]


def test_without_enable_cdi_a_node_is_warned_that_containerd_will_not_use_the_spec_and_the_step_passes(tmp_path):
    """On a real node, CDI off in containerd is worth knowing (a pod asking for the device by CDI would not get it)
    but not a failure: the nvidia runtime itself does not need it. Step 6 judged as on the node's own "/"."""
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run
    from helpers import node_root

    root = _root(tmp_path)
    run_all(root)
    rb = Run(validate(root=str(root), mode="check")).start()
    try:
        rb.preflight()
        rb.target = node_root(root)
        six = rb.run(rb.step("cdi"))
    finally:
        rb.finish()
    assert [(p.code, p.severity, p.is_error) for p in six.problems] == [("cdi.disabled", "warning", False)]
    assert six.status == "passed", six.text()
