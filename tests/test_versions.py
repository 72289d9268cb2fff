"""Config versions as containerd reads them, each version's runtime path, and the file's quoting style kept."""

import tomllib

import pytest

from layouts import CONFIG, FIXTURE_VERSIONS, fixture, make_root, run_steps, runtimes
from runbook_lib.containerd.layout import scan
from runbook_lib.containerd.render import quote_style
from runbook_lib.containerd.versions import detect_version, format_path, read_by, runtime_path, version_for_containerd
from runbook_lib.findings.errors import ConfigError


@pytest.mark.parametrize("text,empty,version", [
    ("", True, 2),                                   # an empty file: containerd's default
    ("oom_score = 0\n", False, 1),                   # no version key: version 1, whatever the tables look like
    ("version = 2\n", False, 2),
    ("version = 3\n", False, 3),
    ("version = 4\n", False, 4),                   # containerd 2.3: read as it is, never relabelled
    ("version = 0\n", False, 1),                   # containerd: version 0 is treated as version 1
])
def test_version_is_read_as_containerd_reads_it(text, empty, version):
    assert detect_version(tomllib.loads(text), path="/c.toml", empty=empty) == version


@pytest.mark.parametrize("text", ['version = "2"\n', "version = 5\n", "version = true\n", "a = 1\nversion = -1\n"])
def test_a_bad_version_stops_with_the_fix_in_both_languages(text):
    with pytest.raises(ConfigError) as exc:
        detect_version(tomllib.loads(text), path="/c.toml", empty=False, text=text)
    for version, who in (("version = 2", "1.x"), ("version = 3", "2.0-2.2"), ("version = 4", "2.3")):
        assert version in exc.value.fix.ko and version in exc.value.fix.en and who in exc.value.fix.en
    assert "2.3" in exc.value.what.ko and "'" not in exc.value.what.ko  # which containerd reads which; no repr
    assert exc.value.line == text.count("\n")  # the version line


def test_each_version_has_its_own_runtime_path():
    assert format_path(runtime_path(1, "nvidia")) == "plugins.cri.containerd.runtimes.nvidia"
    assert format_path(runtime_path(2, "nvidia")) == 'plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia'
    assert format_path(runtime_path(3, "nvidia")) == 'plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia'
    assert runtime_path(4, "nvidia") == runtime_path(3, "nvidia")  # containerd 2.3 left the CRI runtimes in place


@pytest.mark.parametrize("name,version", FIXTURE_VERSIONS.items())
def test_every_containerd_fixture_is_configured_under_its_versions_path(tmp_path, name, version):
    root = make_root(tmp_path, fixture(name))
    rb = run_steps(root)
    assert rb.ok(), [p.what.en for r in rb.results.values() for p in r.problems]
    data = tomllib.loads((root / CONFIG).read_text())
    node = data
    for part in runtime_path(version, "nvidia"):
        node = node[part]
    assert node["options"]["BinaryName"] == "/usr/bin/nvidia-container-runtime"
    assert set(runtimes(root)) >= {"runc", "nvidia"}
    report = (root / "root/toolkit/report.txt").read_text()
    assert report.startswith(f"CONFIG_VERSION={version}\n")  # the version containerd will use


NVIDIA_TABLES = ["runtimes.nvidia]", "runtimes.nvidia.options]"]


# the version-1 fixture has no runc table of its own: the run writes the built-in one it copies from first
@pytest.mark.parametrize("name,quote,tables", [("containerd-2.0-docs-config-v3.toml", "'", NVIDIA_TABLES),
                                               ("containerd-1.6.20-default.toml", '"', NVIDIA_TABLES),
                                               ("v1-no-version-line.toml", '"', ["runtimes.runc]"] + NVIDIA_TABLES)])
def test_new_lines_use_the_files_own_quoting(tmp_path, name, quote, tables):
    original = fixture(name).read_text()
    assert quote_style(original) == quote
    root = make_root(tmp_path, fixture(name))
    run_steps(root, steps=[1, 2])
    new = (root / CONFIG).read_text().splitlines()
    added = [line for line in new if line not in original.splitlines()]
    headers = [line.strip() for line in added if line.strip().startswith("[")]
    assert len(headers) == len(tables) and all(h.endswith(f".{t}") for h, t in zip(headers, tables)), headers
    other = "'" if quote == '"' else '"'
    assert not any(other in line for line in added), added  # not one quote of the other kind
    if name.startswith("containerd-2.0"):
        assert "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.nvidia]" in headers
        assert "BinaryName = '/usr/bin/nvidia-container-runtime'" in [line.strip() for line in added]


def test_the_new_runtime_sits_next_to_its_siblings_with_their_indentation(tmp_path):
    root = make_root(tmp_path, fixture("containerd-1.6.20-default.toml"))
    run_steps(root, steps=[1, 2])
    layout = scan((root / CONFIG).read_text())
    runc = layout.header_for(runtime_path(2, "runc"))
    nvidia = layout.header_for(runtime_path(2, "nvidia"))
    assert nvidia.indent == runc.indent and nvidia.line > runc.line


def test_each_version_says_which_containerd_reads_it():
    assert [read_by(v).en.split(": ")[1].split(" (")[0] for v in (1, 2, 3, 4)] == [
        "containerd 1.x's legacy layout", "containerd 1.3-1.7", "containerd 2.0-2.2", "containerd 2.3 and later"]
    assert all(read_by(v).ko.startswith(f"버전 {v}: containerd") for v in (1, 2, 3, 4))


@pytest.mark.parametrize("containerd,version", [
    ("1.6.20~ds1", 2), ("v1.7.34", 2), ("2.0.0", 3), ("v2.2.3", 3), ("v2.3.0", 4), ("2.4.0-beta.0", 4),
    (None, 2), ("?", 2)])
def test_an_empty_config_gets_the_version_its_containerd_writes(containerd, version):
    assert version_for_containerd(containerd) == version
