"""runbook_lib/containerd/releases.py: the data of what each containerd release reads (made from the binaries by
tools/containerd_releases.py, held to them by tests/real/test_real_containerd_releases.py), as the verdicts read it
where no containerd can be asked."""
from __future__ import annotations

from pathlib import Path

from runbook_lib.containerd import releases
from runbook_lib.containerd.edit import RuntimeWanted, template_runtime
from runbook_lib.containerd.versions import VERSIONS, newest_version_read_by, of
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run

DEFAULT_2_4 = Path(__file__).resolve().parents[1] / "fixtures" / "containerd" / "containerd-2.4.2-default.toml"


def test_each_release_writes_the_version_its_record_says_and_holds_its_runtimes_where_the_record_does():
    for r in releases.releases():
        assert r.writes == newest_version_read_by(r.release), r.release
        assert r.cri_plugin == of(r.writes).plugin_id, r.release
        assert r.cri_plugin in r.plugins and of(r.writes).opt_plugin in r.plugins, r.release


def test_every_version_of_the_records_is_read_by_a_release_and_the_newest_by_none_older():
    for version in VERSIONS:
        assert releases.readers(version), version
    assert [r.release for r in releases.readers(4)] == [r.release for r in releases.releases() if r.writes >= 4]


def test_a_key_is_containerd_s_when_a_release_reading_the_version_keeps_it():
    assert "disable_pause_image_pull" in releases.of_version(4)  # 2.4's own default writes it
    assert "runtime_engine" in releases.of_version(2) and "runtime_engine" not in releases.of_version(4)
    assert "BynaryName" not in releases.of_version(2)
    assert releases.of_version(4).who == "containerd " + ", ".join(r.release for r in releases.readers(4))


def test_the_new_runtime_copies_no_key_containerd_drops():
    runc = {"runtime_type": "io.containerd.runc.v2", "BynaryName": "/usr/bin/runc", "runtime_engine": "",
            "privileged_without_host_devices": True, "options": {"SystemdCgroup": True}}
    for version in (2, 4):
        data = {"plugins": {of(version).plugin_id: {"containerd": {"runtimes": {"runc": runc}}}}}
        table, source = template_runtime(data, version, RuntimeWanted("nvidia", "/usr/bin/nvidia-container-runtime", True))
        assert source == "runc" and "BynaryName" not in table and table["privileged_without_host_devices"] is True
        assert ("runtime_engine" in table) is ("runtime_engine" in releases.of_version(version))


def test_containerd_2_4_s_own_default_with_systemd_cgroup_passes_with_no_containerd_to_ask(tmp_path):
    config = tmp_path / "etc" / "containerd" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(DEFAULT_2_4.read_text().replace("SystemdCgroup = false", "SystemdCgroup = true"))
    rb = Run(validate(root=str(tmp_path), mode="apply", default_runtime="keep")).start()
    try:
        rb.run_all()
    finally:
        rb.finish()
    assert [p.code for _, p in rb.refusals()] == []
    assert rb.results["runtime"].status == "changed" and rb.results["runtime"].problems == []
