"""Each record of runbook_lib/containerd/versions.py (one per config version) held against every real containerd:
the version its `config default` writes and where that puts the plugin tables, where each version's runtimes
are read and which release refuses or drops them, how imports merge, the built-in runc, version 1's plugin IDs
and the names that disable the CRI plugin. A record that says something a release does not do fails here.
(A version-2 file with 2.x names and a version-3 file with version-2 runtimes, `also_reads` and
`migrates_runtimes_of`, are tests/real/test_real_2x_layouts.py's.)"""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import realenv
from runbook_lib.containerd.ask import containerd_version
from runbook_lib.containerd.tables import get_in
from runbook_lib.containerd.verify import ContainerdRejected, containerd_dump, runtimes_table
from runbook_lib.containerd.versions import NO_VERSION_LINE, VERSIONS, format_path, newest_version_read_by, of, of_dump

pytestmark = pytest.mark.real

READ_BY_1_6 = [v for v in VERSIONS if v <= newest_version_read_by(realenv.DEBIAN)]  # the `containerd` fixture's

# containerd 2.0-2.2 read a version-1 file (its v1Migrate renames `cri` to io.containerd.grpc.v1.cri) but not its
# runtime tables: "Ignoring unknown key in TOML for plugin ... key=\"containerd runtimes\"", only the built-in runc is
# left. 2.3 migrates them. The record's sentence ("2.x migrates it") is 2.3's; this is the release it is not.
RUNTIMES_IGNORED = {(1, (2, 2))}


def _newest(binary) -> int:
    """The newest version this release reads, from its own `--version`, as step 2 and step 9 read it."""
    known = newest_version_read_by(containerd_version(binary))
    assert known is not None, containerd_version(binary)
    return known


def _runtime(version: int, name: str) -> str:
    return f'[{format_path(of(version).runtime_path(name))}]\n  runtime_type = "io.containerd.runc.v2"\n'


def _file(version: int, body: str) -> str:
    return ("" if version == NO_VERSION_LINE else f"version = {version}\n") + body


def _dump(binary, path: Path, text: str) -> dict | None:
    """containerd's reading of `text`, or None when it refuses the file."""
    path.write_text(text)
    try:
        return tomllib.loads(containerd_dump(binary, path, Path("/")))
    except ContainerdRejected:
        return None


def _runtimes(dump: dict) -> list[str]:
    return sorted(runtimes_table(dump).get("runtimes", {}))


def test_config_default_is_the_record_of_the_version_it_writes(every_containerd, tmp_path):
    import subprocess
    default = tomllib.loads(subprocess.run([every_containerd, "config", "default"], capture_output=True, text=True,
                                           timeout=60, check=True).stdout)
    assert default["version"] == _newest(every_containerd)
    record = of(default["version"])
    plugins = default["plugins"]
    assert "runc" in get_in(default, record.runtimes_path)
    assert record.cri_service in plugins and record.opt_plugin in plugins
    assert (record.images_plugin in plugins) if record.images_plugin else not any(".images" in k for k in plugins)
    images = plugins[record.images_plugin or record.cri_service]
    assert isinstance(get_in(images, record.sandbox_image), str) and isinstance(get_in(images, record.snapshotter), str)
    if record.server_plugins:
        assert all(f"{record.server_plugins}{s}" in plugins for s in ("grpc", "ttrpc", "metrics", "debug"))
        assert "grpc" not in default and "ttrpc" not in default
    else:
        assert "grpc" in default and not any(k.startswith("io.containerd.server.") for k in plugins)
    assert ("default_runtime" in get_in(default, record.containerd_table)) is record.legacy_default_runtime
    cri = get_in(default, record.cri_plugin)
    if "enable_cdi" in cri:  # 1.6 has no CDI; 2.4 writes no enable_cdi (always on)
        assert cri["enable_cdi"] is record.cdi_enabled_by_default


@pytest.mark.parametrize("version", list(VERSIONS))
def test_each_version_s_runtimes_are_read_where_its_record_says(every_containerd, tmp_path, version):
    newest = _newest(every_containerd)
    dump = _dump(every_containerd, tmp_path / "config.toml", _file(version, _runtime(version, "probe")))
    if version > newest:  # 2.0-2.2 refuse version 4; 1.x knows no version 3 or 4 and drops their tables
        if every_containerd.is_2x:
            assert dump is None
        else:
            assert dump is not None and "probe" not in _runtimes(dump)
        return
    assert dump is not None
    assert dump["version"] == newest and of_dump(dump["version"]).number == newest  # no dump says version 1
    runtimes = _runtimes(dump)
    if (version, every_containerd.minor) in RUNTIMES_IGNORED:
        assert runtimes == ["runc"], runtimes
        return
    assert "probe" in runtimes
    if of(version).keeps_builtin_runc:
        assert "runc" in runtimes
    elif not every_containerd.is_2x:  # 1.x: once the file has a runtime table, the built-in runc is gone
        assert "runc" not in runtimes


def _minor(label: str) -> tuple[int, int]:
    major, minor = label.split(".")[:2]
    return int(major), int(minor)


# (release, version) where the release reads the version's runtimes, from the pinned labels (a skip here would be
# a failure under RUNBOOK_REQUIRE_REAL=1, so the pairs it does not read are not made at all)
READ = [(label, v) for label in realenv.containerd_labels() for v in VERSIONS
        if v <= newest_version_read_by(label) and (v, _minor(label)) not in RUNTIMES_IGNORED]


@pytest.mark.parametrize("label, version", READ, ids=[f"{label}-v{v}" for label, v in READ])
def test_each_version_s_imports_merge_as_its_record_says(label, version, tmp_path):
    """A runtime in the main file and another in a drop-in: 1.x keeps only the drop-in's CRI table, 2.x merges
    key by key. A record that merges key by key is read so by every release; the others are 1.x's rule, the
    one the runbook applies to them."""
    binary = realenv.need_containerd(label)
    drop = tmp_path / "drop.toml"
    drop.write_text(_file(version, _runtime(version, "b")))
    dump = _dump(binary, tmp_path / "config.toml", _file(version, f'imports = ["{drop}"]\n' + _runtime(version, "a")))
    assert dump is not None
    both = {"a", "b"} <= set(_runtimes(dump))
    if of(version).merges_key_by_key or binary.is_2x:
        assert both
    else:
        assert not both
    assert "b" in _runtimes(dump)


@pytest.mark.parametrize("version", READ_BY_1_6)
def test_plugin_ids_are_read_only_in_the_version_that_has_them(containerd, tmp_path, version):
    """containerd 1.6 refuses a plugin ID (`cri`) as a `plugins` key in a file whose keys are URIs."""
    dump = _dump(containerd, tmp_path / "config.toml", _file(version, "[plugins.cri.containerd]\n  snapshotter = 'native'\n"))
    assert (dump is None) is of(version).plugin_keys_are_uris


@pytest.mark.parametrize("version", READ_BY_1_6)
def test_each_name_the_record_gives_disables_the_cri_plugin(containerd, tmp_path, version):
    """Under 1.6 a disabled CRI plugin dumps no runtimes (2.x still dumps its tables: step 9 reads the list)."""
    for name in of(version).cri_disabled_by:
        dump = _dump(containerd, tmp_path / "config.toml",
                     _file(version, f'disabled_plugins = ["{name}"]\n' + _runtime(version, "probe")))
        assert dump is not None and _runtimes(dump) == [], name
