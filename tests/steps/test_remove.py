"""mode=remove's rules (runbook_lib/steps/remove.py), in process so that mutation testing sees them: remove takes
out exactly what a run recorded as written, nothing else. A recorded file that still holds the run's bytes gets
its original back (or goes, when the run created it); once someone changed one since, every recorded file is left
to the table-by-table removal, and a toolkit file still goes only when it holds exactly the bytes a run (with or
without the variants) writes. The verdict reads the disk afterwards."""

from __future__ import annotations

import json
import os

import pytest

from grading_helpers import run_all
from helpers import FIXTURES, finished_run, run_notebook, tree_state
from runbook_lib.containerd.distro.render import render_microk8s
from runbook_lib.containerd.remove import plan_remove
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run
from runbook_lib.findings.catalog import say
from runbook_lib.findings.problem import words
from runbook_lib.fs import applied_record
from runbook_lib.fs.target import Target

CONFIG = "/etc/containerd/config.toml"
SPEC = "/etc/cdi/nvidia.yaml"
DROPIN = "/etc/containerd/conf.d/99-nvidia.toml"
VARIANTS = ("nvidia-cdi", "nvidia-legacy")
NOTE = b"# a note the site added by hand\n"


def _applied(tmp_path, **params):
    """A lab root after a full apply run on containerd 1.6's default config: (root, original config, the record)."""
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    original = (FIXTURES / "containerd-1.6.20-default.toml").read_bytes()
    (root / CONFIG.lstrip("/")).write_bytes(original)
    rb = finished_run(root, **params)
    assert not any(r.failed for r in rb.results.values()), [r.text() for r in rb.results.values() if r.failed]
    record = applied_record.load(Target(str(root)))
    assert record and CONFIG in record
    return root, original, record


def _disk(root, lab):
    path = root / lab.lstrip("/")
    return path.read_bytes() if path.exists() else None


def _hand_edit(root, lab=CONFIG, extra=NOTE):
    path = root / lab.lstrip("/")
    path.write_bytes(path.read_bytes() + extra)


def _planned(root, **params) -> Run:
    """A remove run planned (not committed), its lock held: the caller commits, judges and finishes it."""
    rb = Run(validate(root=str(root), mode="remove", **params)).start()
    rb.preflight()
    return rb


@pytest.mark.parametrize("applied_with,removed_with,layout", [
    (False, False, "inplace"),
    (True, True, "inplace"),
    (True, False, "inplace"),   # the variants an earlier run added go, whatever this run's variants say
    (False, True, "inplace"),   # variants never added: nothing said about them, nothing else touched
    (False, False, "dropin"),  # the drop-in file goes, the import line comes out of config.toml
])
def test_a_config_changed_since_loses_only_the_runbooks_tables_and_the_runs_files_go(tmp_path, applied_with,
                                                                                     removed_with, layout):
    root, original, record = _applied(tmp_path, variants=applied_with, layout=layout)
    _hand_edit(root)
    rb = finished_run(root, mode="remove", variants=removed_with, layout=layout)
    plan, result = rb.plans["remove"], rb.results["remove"]
    assert result.status == "changed" and not result.failed, result.text()
    assert _disk(root, CONFIG) == original + NOTE  # the site's line stays, every table the runbook added goes
    assert plan.recorded == set(record) and plan.exact == {}
    for lab in record:
        if lab != CONFIG:  # every other file this run wrote, it created: the toolkit files, the spec, the drop-in
            assert _disk(root, lab) is None, lab
    if applied_with:
        assert {f"/root/toolkit/runtimeclass-{v}.yaml" for v in VARIANTS} <= set(record)
    said = [n.en for n in plan.notes]
    added = ["nvidia"] + (list(VARIANTS) if applied_with else [])
    if layout == "dropin":  # the drop-in held the runtime: it goes whole, with its entry in imports
        assert any("retiring the drop-in" in n and DROPIN in n for n in said), said
        added = []
    assert len([n for n in said if "removing the runtime table" in n]) == len(added), said
    for name in added:  # each runtime's table by its name, a bare key (nvidia, nvidia-cdi, nvidia-legacy)
        assert any(f"runtimes.{name}]" in n for n in said), (name, said)
    assert not any("nothing to remove" in n for n in said), said
    assert plan.subject == CONFIG
    changed = [w.lab_path for w in plan.writes] + plan.retire
    assert sorted(changed) == sorted(record) and plan.message.en == \
        say("steps.remove.remove", join=", ".join(changed)).en
    again = finished_run(root, mode="remove", variants=removed_with, layout=layout)
    assert again.results["remove"].status in ("unchanged", "passed"), again.results["remove"].text()
    assert again.plans["remove"].message.en == say("steps.remove.nothing_remove_nothing_runbook").en
    assert _disk(root, CONFIG) == original + NOTE


def test_a_toolkit_file_with_the_runbooks_bytes_that_no_run_recorded_stays(tmp_path):
    root, original, record = _applied(tmp_path)
    kept = root / "root/toolkit/default.txt"
    mine = kept.read_bytes()
    record_file = root / applied_record.RECORD.lstrip("/")
    body = json.loads(record_file.read_text())  # a record without that file: as if no run had written it
    del body["files"]["/root/toolkit/default.txt"]
    record_file.write_text(json.dumps(body))
    _hand_edit(root)
    rb = finished_run(root, mode="remove")
    assert not rb.results["remove"].failed, rb.results["remove"].text()
    assert kept.read_bytes() == mine  # the runbook's bytes, but no run of it recorded writing them here
    assert _disk(root, "/root/toolkit/parsed.txt") is None and _disk(root, CONFIG) == original + NOTE


def test_the_cdi_settings_go_with_the_runbooks_spec(tmp_path):
    root, original, _ = _applied(tmp_path, enable_cdi=True)
    assert b"enable_cdi" in _disk(root, CONFIG)
    _hand_edit(root)
    rb = finished_run(root, mode="remove", enable_cdi=True)
    assert not rb.results["remove"].failed, rb.results["remove"].text()
    assert _disk(root, SPEC) is None
    assert _disk(root, CONFIG) == original + NOTE  # enable_cdi and cdi_spec_dirs went with the spec
    said = [n for n in rb.plans["remove"].notes if "enable_cdi" in n.en]
    assert len(said) == 1 and CONFIG in said[0].en and CONFIG in said[0].ko, said  # at the file they go from


def test_the_cdi_settings_go_with_the_spec_when_the_runtime_was_taken_out_by_hand(tmp_path):
    root, original, _ = _applied(tmp_path, enable_cdi=True)
    target = Target(str(root))
    by_hand = plan_remove(target, CONFIG, Run(validate(root=str(root))).wanted)
    (root / CONFIG.lstrip("/")).write_bytes(by_hand.writes[0].new)  # the person took the runtime's tables out
    assert b"enable_cdi" in _disk(root, CONFIG) and b"runtimes.nvidia" not in _disk(root, CONFIG)
    rb = finished_run(root, mode="remove", enable_cdi=True)
    assert not rb.results["remove"].failed, rb.results["remove"].text()
    assert _disk(root, SPEC) is None and _disk(root, CONFIG) == original


def test_the_cdi_settings_stay_with_a_spec_changed_by_hand(tmp_path):
    root, original, _ = _applied(tmp_path, enable_cdi=True)
    _hand_edit(root)
    _hand_edit(root, SPEC, b"# the site's own devices follow\n")
    spec = _disk(root, SPEC)
    rb = finished_run(root, mode="remove", enable_cdi=True)
    assert not rb.results["remove"].failed, rb.results["remove"].text()
    assert _disk(root, SPEC) == spec
    left = _disk(root, CONFIG).decode()
    assert "enable_cdi = true" in left and "runtimes.nvidia" not in left  # the spec stays, so what reads it stays


@pytest.mark.parametrize("site_dropin", [False, True])
def test_an_untouched_apply_comes_back_file_by_file_and_the_record_goes(tmp_path, site_dropin):
    """Every recorded file still holds the run's bytes: each gets its bytes from before, and that is all the plan
    says (a drop-in of the site's own, in the folder the drop-in layout uses, is not even looked at)."""
    root, original, record = _applied(tmp_path)
    if site_dropin:
        (root / "etc/containerd/conf.d").mkdir(parents=True)
        (root / DROPIN.lstrip("/")).write_text("# written by the site\nversion = 2\n")
    rb = finished_run(root, mode="remove")
    plan, result = rb.plans["remove"], rb.results["remove"]
    assert result.status == "changed" and not result.failed, result.text()
    expected = [words("remove.restores_original" if record[lab].before is not None else "remove.deletes_created",
                      file=lab)[0].en for lab in sorted(record)]
    assert [n.en for n in plan.notes] == expected
    assert any("giving " + CONFIG in n for n in expected) and any("which the runbook created" in n for n in expected)
    assert plan.exact == {lab: e.before for lab, e in record.items()} and plan.recorded == set()
    for w in plan.retired:  # a retired file's diff shows its lines going, none coming
        assert [line for line in w.diff().splitlines() if line.startswith("+") and not line.startswith("+++")] == []
    assert _disk(root, CONFIG) == original
    assert applied_record.load(Target(str(root))) is None  # every file came back: the record goes with them
    assert _disk(root, DROPIN) == (b"# written by the site\nversion = 2\n" if site_dropin else None)


@pytest.mark.parametrize("layout", ["inplace", "dropin"])
def test_an_empty_original_config_comes_back_empty_not_deleted(tmp_path, layout):
    """`touch /etc/containerd/config.toml` (a node on containerd's defaults, a course handout): zero bytes is an
    original like any other. remove gives the file back with its zero bytes; it neither deletes it (as for a file
    the run created) nor leaves the run's bytes in it (issue 44: `if before` for `before is not None` survived)."""
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG.lstrip("/")).write_bytes(b"")
    applied = finished_run(root, layout=layout)
    assert not any(r.failed for r in applied.results.values()), [r.text() for r in applied.results.values() if r.failed]
    assert applied_record.load(Target(str(root)))[CONFIG].before == b""
    assert _disk(root, CONFIG) != b"", "apply wrote the runtime into the empty config"
    rb = finished_run(root, mode="remove", layout=layout)
    assert rb.results["remove"].status == "changed" and not rb.results["remove"].failed, rb.results["remove"].text()
    assert _disk(root, CONFIG) == b""
    assert [n.en for n in rb.plans["remove"].notes if CONFIG + " " in n.en + " "] == \
        [words("remove.restores_original", file=CONFIG)[0].en]
    assert applied_record.load(Target(str(root))) is None


def test_without_a_record_nothing_is_removed_and_the_plan_says_which_record(tmp_path):
    root, original, _ = _applied(tmp_path)
    applied = _disk(root, CONFIG)
    (root / applied_record.RECORD.lstrip("/")).unlink()
    rb = finished_run(root, mode="remove")
    plan = rb.plans["remove"]
    assert not plan.changed and not rb.results["remove"].failed
    assert plan.message.en == words("remove.no_record", record=applied_record.RECORD)[0].en
    assert applied_record.RECORD in plan.message.en and applied_record.RECORD in plan.message.ko
    assert plan.subject == CONFIG
    assert _disk(root, CONFIG) == applied


def _verdict_after_removal(root, between) -> list:
    """The remove step's commit, then `between()` (a change of the disk), then its verdict's findings: the verdict
    reads the disk as it is when the check runs."""
    rb = _planned(root)
    try:
        step = rb.step("remove")
        rb.commit(step)
        between()
        return rb.verdict(step).problems
    finally:
        rb.finish()


def test_the_verdict_finds_a_recorded_file_that_did_not_get_its_original_back(tmp_path):
    root, _, _ = _applied(tmp_path)
    found = _verdict_after_removal(root, lambda: _hand_edit(root))
    assert [(p.code, p.path) for p in found] == [("remove.not_original", CONFIG)]
    assert CONFIG in found[0].what.en and CONFIG in found[0].what.ko


def test_the_verdict_finds_the_runtime_back_in_a_config_changed_since(tmp_path):
    root, _, _ = _applied(tmp_path)
    _hand_edit(root)
    with_runtime = _disk(root, CONFIG)

    def put_it_back():
        assert b"runtimes.nvidia" not in _disk(root, CONFIG)
        (root / CONFIG.lstrip("/")).write_bytes(with_runtime)

    found = _verdict_after_removal(root, put_it_back)
    runtime = [p for p in found if p.code == "remove.still_there.runtime"]
    assert runtime and all(p.path == CONFIG for p in runtime)
    assert any("nvidia" in p.what.en for p in runtime) and all(p.values.get("left") for p in runtime)


def test_the_verdict_finds_a_retired_file_back(tmp_path):
    root, _, _ = _applied(tmp_path)
    report = "/root/toolkit/report.txt"
    def write_again():
        (root / report.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
        (root / report.lstrip("/")).write_text("written again\n")
    found = _verdict_after_removal(root, write_again)
    back = [p for p in found if p.code == "remove.still_there"]
    assert [p.path for p in back] == [report]
    for said in (back[0].what.en, back[0].what.ko):  # the file named, and the fix that removes it
        assert said.endswith(f": {report}"), said
    at = os.path.realpath(root) + report  # the rm as pasted: under the root (issue 51)
    assert back[0].fix.en == f"rm {at}" and back[0].fix.ko == f"rm {at}"


def test_cdi_settings_no_run_wrote_stay_when_the_runbooks_spec_goes(tmp_path):
    """The site's config already held the runtime and the CDI settings exactly as the runbook writes them, so the
    run wrote only the toolkit files and the spec: the spec goes, config.toml (never recorded) is not touched."""
    first, _, _ = _applied(tmp_path / "first", enable_cdi=True)
    site = _disk(first, CONFIG)
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG.lstrip("/")).write_bytes(site)
    rb = finished_run(root, enable_cdi=True)
    assert not any(r.failed for r in rb.results.values())
    record = applied_record.load(Target(str(root)))
    assert SPEC in record and CONFIG not in record
    _hand_edit(root, "/root/toolkit/report.txt", b"my own notes\n")
    removed = finished_run(root, mode="remove", enable_cdi=True)
    assert not removed.results["remove"].failed, removed.results["remove"].text()
    assert _disk(root, SPEC) is None and _disk(root, CONFIG) == site
    assert not any("removing the runtime table" in n.en for n in removed.plans["remove"].notes)  # nor says it does


def _k3s_applied_then_edited(tmp_path):
    """A k3s node the runbook applied to, whose Go template the site edited since: (root, the template's path)."""
    from distro_helpers import distro_fixture, write_root
    k3s = "/var/lib/rancher/k3s/agent/etc/containerd"
    template = f"{k3s}/config-v3.toml.tmpl"
    root = write_root(tmp_path, {f"{k3s}/config.toml".lstrip("/"): distro_fixture("k3s-v3/config.toml"),
                                 template.lstrip("/"): distro_fixture("k3s-v3/config-v3.toml.tmpl")})
    rb = finished_run(root)
    assert not any(r.failed for r in rb.results.values())
    _hand_edit(root, template, b"# the site's note\n")
    return root, template


def test_on_k3s_the_verdict_names_the_template_the_runtime_came_back_in(tmp_path):
    """On a distribution the runbook writes its route (k3s: the Go template), never the config k3s generates:
    a runtime found there again after the removal is named at the template."""
    root, template = _k3s_applied_then_edited(tmp_path)  # changed since: the route's table-by-table removal
    with_runtime = _disk(root, template)
    rb = _planned(root)
    try:
        step = rb.step("remove")
        rb.commit(step)
        assert b"runtimes.nvidia" not in _disk(root, template) and b"runtimes.'nvidia'" not in _disk(root, template)
        (root / template.lstrip("/")).write_bytes(with_runtime)
        found = rb.verdict(step).problems
    finally:
        rb.finish()
    runtime = [p for p in found if p.code == "remove.still_there.runtime"]
    assert [p.path for p in runtime] == [template]
    assert template in runtime[0].what.en and template in runtime[0].what.ko  # where it is, in what is left


def test_on_k3s_a_removal_that_took_the_runtime_out_of_the_template_leaves_the_verdict_nothing(tmp_path):
    """The same removal read back with nothing put back: the template no longer holds the runtime, so the verdict
    finds nothing left, though k3s's generated config keeps it until k3s starts again."""
    root, template = _k3s_applied_then_edited(tmp_path)
    removed = finished_run(root, mode="remove")
    result = removed.results["remove"]
    assert result.status == "changed" and removed.plans["remove"].recorded, result.text()
    assert b"nvidia" not in _disk(root, template)
    assert result.problems == [], result.text()


def test_without_a_route_the_verdict_names_the_config_the_runtime_is_back_in(tmp_path):
    """Two distributions' folders under the root (k3s and RKE2, distro=auto): no route is chosen, and remove works
    on the config the record names; a runtime found there again after the removal is named at that config."""
    root, _, _ = _applied(tmp_path)
    _hand_edit(root)
    with_runtime = _disk(root, CONFIG)
    for name in ("k3s", "rke2"):
        (root / "etc/rancher" / name).mkdir(parents=True)
    rb = _planned(root)
    try:
        assert rb.route is None and rb.route_refusal is not None
        step = rb.step("remove")
        rb.commit(step)
        assert b"runtimes.nvidia" not in _disk(root, CONFIG)
        (root / CONFIG.lstrip("/")).write_bytes(with_runtime)
        found = rb.verdict(step).problems
    finally:
        rb.finish()
    runtime = [p for p in found if p.code == "remove.still_there.runtime"]
    assert runtime and [p.path for p in runtime] == [CONFIG] * len(runtime)


def test_each_file_remove_takes_away_is_named_as_the_backup_it_became_with_the_hash_of_its_bytes(tmp_path):
    """A root whose config the node had and whose CDI spec the runbook created: remove gives the config its
    original back, keeping the run's version as a backup named in the step's result (lab path, path on this
    machine, its bytes' hash); the spec the runbook created goes without a backup (its bytes are the runbook's
    own), and so does the folder the run made for it."""
    import hashlib

    from reliability_helpers import BASE

    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG.lstrip("/")).write_bytes(BASE)
    finished_run(root, mode="apply")
    applied = (root / CONFIG.lstrip("/")).read_bytes()
    rb = finished_run(root, mode="remove")
    result = rb.results["remove"]
    assert result.status == "changed" and not result.failed, result.text()
    backups = [f for f in result.files if f["action"] == "backup"]
    (kept,) = [f for f in backups if f["path"].startswith(CONFIG + ".runbook-backup-")]
    assert kept["host_path"] == str(root / kept["path"].lstrip("/"))
    assert kept["sha256"] == hashlib.sha256(applied).hexdigest()
    assert (root / kept["path"].lstrip("/")).read_bytes() == applied
    assert [f for f in backups if f["path"].startswith(SPEC)] == []
    assert not (root / SPEC.lstrip("/")).parent.exists()
    rb.finish()


# -------------------------------------------------------------------------------------------------------------------
# From tests/steps/test_remove.py (merged here):
# mode=remove takes out exactly what the runbook added (issue 14): the config comes back byte for byte, the
# toolkit files and the minimal CDI spec it wrote go (kept as backups), a file a person wrote stays, a second run
# changes nothing, and the same holds through papermill.


CONFIG_REL = "etc/containerd/config.toml"
TOOLKIT = "root/toolkit"


def _applied_files(tmp_path, layout="inplace"):
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    original = (FIXTURES / "containerd-1.6.20-default.toml").read_bytes()
    (root / CONFIG_REL).write_bytes(original)
    assert not any(r.failed for r in run_all(root, layout=layout).values())
    return root, original


def _remove(root, **params):
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run
    rb = Run(validate(root=str(root), mode="remove", **params)).start()
    try:
        return rb.run_all()
    finally:
        rb.finish()


@pytest.mark.parametrize("layout", ["inplace", "dropin"])
def test_remove_gives_the_original_config_back_and_is_idempotent(tmp_path, layout):
    root, original = _applied_files(tmp_path, layout)
    results = _remove(root, layout=layout)
    assert results["remove"].status == "changed" and not results["remove"].failed, results["remove"].text()
    assert (root / CONFIG_REL).read_bytes() == original
    assert not (root / "etc/containerd/conf.d/99-nvidia.toml").exists()
    for name in ("default.txt", "parsed.txt", "cdi-keys.txt", "runtimeclass.yaml", "report.txt"):
        assert not (root / TOOLKIT / name).exists(), name
    assert not (root / TOOLKIT).exists(), "the files the runbook created go without backups, with their folder"
    assert not (root / "etc/cdi").exists()
    before = tree_state(root)
    again = _remove(root, layout=layout)
    assert again["remove"].status == "unchanged" and not again["remove"].failed
    assert {k: v for k, v in tree_state(root).items() if not k.startswith("run")} == \
        {k: v for k, v in before.items() if not k.startswith("run")}


def test_remove_keeps_what_a_person_wrote(tmp_path):
    root, _ = _applied_files(tmp_path)
    (root / TOOLKIT / "report.txt").write_text("my own notes\n")
    _remove(root)
    assert (root / TOOLKIT / "report.txt").read_text() == "my own notes\n"


def test_remove_through_papermill(tmp_path):
    root, original = _applied_files(tmp_path)
    run_notebook(root, tmp_path / "removed.ipynb", mode="remove")
    assert (root / CONFIG_REL).read_bytes() == original



K3S = "var/lib/rancher/k3s/agent/etc/containerd"
MK8S = "var/snap/microk8s/current/args"


def _distro_cases():
    from distro_helpers import distro_fixture
    crlf = '{{ template "base" . }}\r\n\r\n[plugins."io.containerd.grpc.v1.cri".registry.mirrors."docker.io"]\r\n  endpoint = ["https://m.local"]\r\n'
    return {
        # (files, the route's file the runbook writes, parameters)
        "k3s-template": ({f"{K3S}/config.toml": distro_fixture("k3s-v3/config.toml"),
                          f"{K3S}/config-v3.toml.tmpl": distro_fixture("k3s-v3/config-v3.toml.tmpl")},
                         f"{K3S}/config-v3.toml.tmpl", {}),
        "k3s-template-crlf": ({f"{K3S}/config.toml": distro_fixture("k3s-v2/config.toml"), f"{K3S}/config.toml.tmpl": crlf},
                              f"{K3S}/config.toml.tmpl", {}),
        "k3s-dropin": ({f"{K3S}/config.toml": distro_fixture("k3s-v3-dropin/config.toml")},
                       f"{K3S}/config-v3.toml.d/99-nvidia.toml", {"replace_runtime": True}),
        "microk8s": ({f"{MK8S}/containerd-template.toml": distro_fixture("microk8s/containerd-template.toml"),
                      # microk8s has started once: its generated config is there
                      f"{MK8S}/containerd.toml": render_microk8s(distro_fixture("microk8s/containerd-template.toml"))},
                     f"{MK8S}/containerd-template.toml", {}),
        "k0s": ({"etc/k0s/containerd.toml": distro_fixture("k0s/containerd.toml"), "etc/k0s/containerd.d/.keep": ""},
                "etc/k0s/containerd.d/nvidia.toml", {}),
    }


@pytest.mark.parametrize("case", ["k3s-template", "k3s-template-crlf", "k3s-dropin", "microk8s", "k0s"])
def test_remove_on_a_distributions_route_takes_out_what_apply_wrote_there(tmp_path, case):
    """The remove step used to look only at the file the distribution generates (where the runbook never
    writes) and said "nothing to remove", leaving the template block or the drop-in in place."""
    from distro_helpers import write_root
    files, written, params = _distro_cases()[case]
    root = write_root(tmp_path, files)
    original = (root / written).read_bytes() if (root / written).exists() else None
    applied = run_all(root, **params)
    assert not any(r.failed for r in applied.values()) and (root / written).read_bytes() != original
    results = _remove(root, **params)
    assert results["remove"].status == "changed" and not results["remove"].failed, results["remove"].text()
    assert ((root / written).read_bytes() if (root / written).exists() else None) == original
    for rel, content in files.items():
        assert (root / rel).read_bytes() == (content.encode() if isinstance(content, str) else content), rel
    again = _remove(root, **params)
    assert again["remove"].status == "unchanged" and not again["remove"].failed, again["remove"].text()


def test_apply_and_remove_twenty_times_leave_the_config_its_pruned_backups_and_nothing_else(tmp_path):
    """Issue 42 and 39: each apply/remove cycle used to add 8 backups (1,600 after 200 cycles), and remove left
    the lock, empty folders and backups of the files the runbook itself created. Now, after any number of
    cycles, the node holds its config (byte for byte its own) and the config's backups by the pruning rule
    (the original and the `keep_backups` newest), and nothing else of the runbook's; a folder the node had
    stays, even when the runbook's files were all that was in it."""
    from reliability_helpers import BASE

    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / "etc/cdi").mkdir(parents=True)  # the node's own, empty
    (root / CONFIG.lstrip("/")).write_bytes(BASE)
    for _ in range(20):
        finished_run(root, mode="apply").finish()
        finished_run(root, mode="remove").finish()
    assert (root / CONFIG.lstrip("/")).read_bytes() == BASE
    left = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
    backups = [name for name in left if ".runbook-backup-" in name]
    assert left == sorted(["etc", "etc/containerd", "etc/cdi", "etc/containerd/config.toml", *backups])
    assert len(backups) == 1 + 3
    assert all(name.startswith("etc/containerd/config.toml.runbook-backup-") for name in backups)


def _remove_named(root, **params):
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run

    rb = Run(validate(root=str(root), mode="remove", **params)).start()
    try:
        rb.preflight()
        return {step.id: rb.run(step) for step in rb.steps}
    finally:
        rb.finish()


def test_remove_by_name_takes_out_that_runtime_only_and_says_so_and_the_last_remove_gives_the_original_back(tmp_path):
    """Issue 42: nodes keep several NVIDIA runtimes (nvidia, nvidia-cdi). `mode=remove -p runtime_name nvidia-cdi`
    used to give config.toml its bytes from before the first apply, taking nvidia out too, and said only the
    runbook's lines were taken out. Now it takes out nvidia-cdi's table only, from the record, and says which
    runtimes stay; the remove of nvidia after it gives the config its original bytes back."""
    import tomllib

    from reliability_helpers import BASE, run_apply

    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    config = root / CONFIG.lstrip("/")
    config.write_bytes(BASE)
    run_apply(root)
    cdi = {"runtime_name": "nvidia-cdi", "binary_name": "/usr/bin/nvidia-container-runtime.cdi"}
    run_apply(root, **cdi)
    from runbook_lib.fs.applied_record import RECORD

    record = root / RECORD.lstrip("/")
    assert {n.partition("/")[0] for n in json.loads(record.read_text())["runtimes"]} == {"nvidia", "nvidia-cdi"}
    results = _remove_named(root, **cdi)
    assert results["remove"].status == "changed" and not results["remove"].failed, results["remove"].text()
    runtimes = tomllib.loads(config.read_text())["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]
    assert sorted(runtimes) == ["nvidia", "runc"]
    # the record forgets nvidia-cdi: the runbook's to remove is nvidia alone, from the bytes config.toml has now
    assert {n.partition("/")[0] for n in json.loads(record.read_text())["runtimes"]} == {"nvidia"}
    said = [n for n in results["remove"].notes if "nvidia-cdi" in n.en and "(nvidia)" in n.en]
    assert len(said) == 1 and "nvidia-cdi" in said[0].ko and "(nvidia)" in said[0].ko
    assert (root / "root/toolkit/runtimeclass.yaml").exists()  # shared files stay for the runtime that stays
    again = _remove_named(root, **cdi)
    assert again["remove"].status == "unchanged", again["remove"].text()
    last = _remove_named(root)
    assert not last["remove"].failed, last["remove"].text()
    assert config.read_bytes() == BASE


def test_remove_by_name_takes_the_variants_its_own_run_added_and_not_a_runtime_of_the_same_name_added_alone(tmp_path):
    """nvidia applied with its variants (nvidia-cdi, nvidia-legacy), and a runtime named like another's variant
    added on its own: removing the one asked for takes out its variants too, and the lone runtime stays."""
    import tomllib

    from reliability_helpers import BASE, run_apply

    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    config = root / CONFIG.lstrip("/")
    config.write_bytes(BASE)
    run_apply(root, variants=True)
    run_apply(root, runtime_name="gpu", binary_name="/usr/bin/gpu-container-runtime")
    results = _remove_named(root)
    assert not results["remove"].failed, results["remove"].text()
    runtimes = tomllib.loads(config.read_text())["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]
    assert sorted(runtimes) == ["gpu", "runc"]
    _remove_named(root, runtime_name="gpu", binary_name="/usr/bin/gpu-container-runtime")
    assert config.read_bytes() == BASE
