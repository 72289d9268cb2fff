"""CDI in containerd's CRI plugin: enable_cdi and cdi_spec_dirs read for the config's version (off by default
in 1.7, on in 2.x), checked against the spec's folder, and set when asked keeping every other line."""

import difflib
import tomllib

import pytest

from distro_helpers import distro_fixture, write_root, containerd_reads
from layouts import fixture
from runbook_lib.containerd.cdi_config import CDI_DIR_NOT_SCANNED, CDI_DISABLED, cdi_findings, cdi_settings, plan_cdi

SPEC_DIR = "/etc/cdi"


def only_insertions_or_value_changes(old: str, new: str) -> bool:
    ops = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines(), autojunk=False).get_opcodes()
    return all(tag == "equal" or tag == "insert" or (tag == "replace" and i2 - i1 == j2 - j1 == 1)
               for tag, i1, i2, j1, j2 in ops)


@pytest.mark.parametrize("text,version,enabled,table", [
    ("version = 2\n", 2, False, "io.containerd.grpc.v1.cri"),       # containerd 1.7: off by default
    ("", 1, False, "cri"),
    ("version = 3\n", 3, True, "io.containerd.cri.v1.runtime"),     # containerd 2.x: on by default
    ("version = 4\n", 4, True, "io.containerd.cri.v1.runtime"),
    ("version = 3\n[plugins.'io.containerd.cri.v1.runtime']\nenable_cdi = false\n", 3, False, "io.containerd.cri.v1.runtime"),
])
def test_defaults_and_paths_per_version(text, version, enabled, table):
    s = cdi_settings(tomllib.loads(text), version)
    assert s.enabled is enabled and s.plugin[1] == table and s.spec_dirs == ("/etc/cdi", "/var/run/cdi")


def test_findings_say_what_is_off_and_the_line_to_write():
    data = tomllib.loads(distro_fixture("kubespray-2.x-config.toml"))
    found = cdi_findings(cdi_settings(data, 2), "/opt/cdi", lab_path="/etc/containerd/config.toml")
    assert [f.code for f in found] == [CDI_DISABLED, CDI_DIR_NOT_SCANNED]
    assert "containerd 1.7 defaults to false" in found[0].what.en and "1.7" in found[0].what.ko
    assert found[1].fix.en.endswith('cdi_spec_dirs = ["/etc/cdi", "/var/run/cdi", "/opt/cdi"]')
    assert found[1].values["spec_dir"] == "/opt/cdi"
    v4 = tomllib.loads(distro_fixture("containerd-2.3-config-v4.toml"))
    assert cdi_findings(cdi_settings(v4, 4), "/run/cdi", lab_path="/c") == []  # /var/run is /run


@pytest.mark.parametrize("text,version", [
    (fixture("containerd-1.6.20-default.toml").read_text(), 2),
    (fixture("containerd-2.0-docs-config-v3.toml").read_text(), 3),
    (fixture("v1-no-version-line.toml").read_text(), 1),
    (distro_fixture("kubespray-2.x-config.toml"), 2),
    ("version = 2\n\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  default_runtime_name = \"runc\"\n", 2),
])
def test_planned_cdi_settings_keep_every_line_and_read_back(text, version):
    plan = plan_cdi(text, tomllib.loads(text), version, "/opt/cdi", lab_path="/c")
    assert only_insertions_or_value_changes(text, plan.text)
    after = cdi_settings(tomllib.loads(plan.text), version)
    assert after.enabled and "/opt/cdi" in after.spec_dirs
    again = plan_cdi(plan.text, tomllib.loads(plan.text), version, "/opt/cdi", lab_path="/c")
    assert again.text == plan.text and "already right" in again.notes[0].en  # idempotent


def test_containerd_1_6_still_accepts_the_file_with_cdi_keys(tmp_path):
    """containerd 1.6 knows no CDI: the keys must not make it refuse the file (1.7 and 2.x read them)."""
    text = fixture("containerd-1.6.20-default.toml").read_text()
    plan = plan_cdi(text, tomllib.loads(text), 2, SPEC_DIR, lab_path="/c")
    root = write_root(tmp_path, {"etc/containerd/config.toml": plan.text})
    seen = containerd_reads(root, runtime="runc")
    assert seen["runtime"]["runtime_type"] == "io.containerd.runc.v2"
