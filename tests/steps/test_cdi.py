"""enable_cdi=True: containerd's CRI plugin is told to use the CDI spec's folder, in the same plan as the rest,
and containerd 1.6 still reads the result (it ignores the keys: it has no CDI); without it, nothing changes."""

from __future__ import annotations

import tomllib

from grading_helpers import GOOD, check, run_all
from helpers import tree_state
from reliability_helpers import assert_containerd_registered
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run

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
    from helpers import as_node

    root = _root(tmp_path)
    run_all(root)
    rb = Run(validate(root=str(root), mode="check")).start()
    try:
        rb.preflight()
        rb.target = as_node(root)
        six = rb.run(rb.step("cdi"))
    finally:
        rb.finish()
    assert [(p.code, p.severity, p.is_error) for p in six.problems] == [("cdi.disabled", "warning", False)]
    assert six.status == "passed", six.text()


# -------------------------------------------------------------------------------------------------------------------
# From tests/steps/test_cdi.py (merged here):
# The rules of step 6 with enable_cdi=True (runbook_lib/steps/cdi.py, `_enable_cdi`): the config is among
# its writes only when the CDI settings change it, what the plan noted about the spec is kept beside what it says
# about the settings, a config it cannot edit is refused naming that file, and check mode points a CDI setting
# that is off at the config. In process (the plan as the
# notebook's first cell computes it), so `make mutate` sees them (tests/steps/test_cdi.py runs the whole step).


SPEC = "etc/cdi/nvidia.yaml"


def _rules_root(tmp_path, config: bytes = GOOD.read_bytes()):
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_bytes(config)
    return root


def _plan_of_step_6(root, **params):
    rb = Run(validate(root=str(root), **params)).start()
    try:
        return rb.preflight()["cdi"]
    finally:
        rb.finish()


def test_the_config_is_among_the_writes_only_when_the_cdi_settings_change_it(tmp_path):
    root = _rules_root(tmp_path)
    first = _plan_of_step_6(root, enable_cdi=True)
    assert [w.lab_path for w in first.writes] == ["/" + SPEC, "/root/toolkit/cdi-keys.txt", "/" + CONFIG]
    assert all(w.changed for w in first.writes)
    applied = run_all(root, enable_cdi=True)
    assert not any(r.failed for r in applied.values()), [r.text() for r in applied.values() if r.failed]
    again = _plan_of_step_6(root, enable_cdi=True)  # the settings are there: the config is not planned at all
    assert [w.lab_path for w in again.writes] == ["/root/toolkit/cdi-keys.txt"] and not again.changed


def test_a_warning_about_the_spec_is_kept_beside_the_note_about_the_settings(tmp_path):
    """A spec copied from newer docs (cdiVersion 0.6.0) is a warning that stops nothing: the plan says it, and
    says what it writes into containerd's CDI settings."""
    root = _rules_root(tmp_path)
    run_all(root)  # the runbook's own spec, then made newer
    spec = root / SPEC
    spec.write_text(spec.read_text().replace('cdiVersion: "0.5.0"', 'cdiVersion: "0.6.0"'))
    plan = _plan_of_step_6(root, enable_cdi=True)
    said = [n.en for n in plan.notes]
    assert not plan.refusals, plan.refusals
    assert any("0.6.0" in n for n in said) and any("enable_cdi = true" in n for n in said), said


def test_a_cri_plugin_written_as_an_inline_table_is_refused_naming_the_config(tmp_path):
    """enable_cdi has no table to go in: the plan refuses, naming the file to edit by hand."""
    config = (b'version = 2\n\n[plugins]\n  "io.containerd.grpc.v1.cri" = { sandbox_image = "pause:3.9" }\n')
    plan = _plan_of_step_6(_rules_root(tmp_path, config), enable_cdi=True)
    assert [p.code for p in plan.refusals] == ["config.unreadable.inline_table_which_runbook"], plan.refusals
    assert plan.refusals[0].path == "/" + CONFIG  # where the finding points: the file to edit by hand


def test_check_names_the_config_where_containerds_cdi_is_off(tmp_path):
    """enable_cdi asked for in check mode, on a config written without it: the finding points at the file to edit."""
    root = _rules_root(tmp_path)
    run_all(root)
    found = [p for p in check(root, enable_cdi=True)[6].problems if p.code == "cdi.disabled"]
    assert len(found) == 1 and found[0].path == "/" + CONFIG, found
