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


# --- one record per version (issue 38): no module but versions.py decides by a version's number or names its tables

import ast  # noqa: E402
import dataclasses  # noqa: E402
from pathlib import Path  # noqa: E402

from runbook_lib.containerd import versions  # noqa: E402
from runbook_lib.findings.catalog import catalog  # noqa: E402

LIB = Path(__file__).resolve().parents[2] / "runbook_lib"
VERSIONS_PY = LIB / "containerd" / "versions.py"
# String literals that name a CRI plugin table outside versions.py, and why each stays as it is.
PLUGIN_NAMES_KEPT = {
    LIB / "lab" / "mistakes.py": "the lab's mistakes, as a student writes them into the version-2 seed file",
    LIB / "containerd" / "smoke" / "sandbox.py": "containerd's own log line for a CRI plugin that fails to load",
}


def _mentions_version(node: ast.AST) -> bool:
    return any("version" in (n.id if isinstance(n, ast.Name) else n.attr).lower()
               for n in ast.walk(node) if isinstance(n, (ast.Name, ast.Attribute)))


def _int(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def _ints(node: ast.AST) -> bool:
    return _int(node) or isinstance(node, (ast.Tuple, ast.List, ast.Set)) and bool(node.elts) and all(map(_int, node.elts))


def version_numbers_compared(source: str) -> list[str]:
    """`version >= 3`, `eff.version == 2`, `version in (3, 4)` and `version in SPLIT` where the module binds
    SPLIT = (3, 4): a decision taken on a version's number instead of its record."""
    tree = ast.parse(source)
    number_names = {t.id for n in tree.body if isinstance(n, ast.Assign) and _ints(n.value)
                    for t in n.targets if isinstance(t, ast.Name)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            numbers = [s for s in sides if _ints(s) or isinstance(s, ast.Name) and s.id in number_names]
            if numbers and any(_mentions_version(s) for s in sides if s not in numbers):
                out.append(f"{node.lineno}: {ast.get_source_segment(source, node)}")
    return out


def tables_keyed_by_version(source: str) -> list[str]:
    """A dict display whose keys are config versions ({2: ..., 3: ...}): a fact of each version kept aside."""
    return [f"{node.lineno}: {ast.get_source_segment(source, node)[:60]}" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Dict) and len(node.keys) > 1 and all(k is not None and _int(k) for k in node.keys)
            and {k.value for k in node.keys} <= set(versions.VERSIONS)]


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}


def _plugin_names() -> set[str]:
    names = set()
    for v in versions.VERSIONS.values():
        names |= {v.plugin_id, v.cri_service, v.opt_plugin, v.images_plugin or "", v.server_plugins or "", *v.cri_disabled_by}
    return {n for n in names if n.startswith("io.containerd.")}


def plugin_tables_named(source: str) -> list[str]:
    """String literals (docstrings aside) that spell a version's CRI, image, opt or server plugin table."""
    tree = ast.parse(source)
    docs, names = _docstrings(tree), _plugin_names()
    return [f"{node.lineno}: {node.value[:60]!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
            and any(name in node.value for name in names)]


def _library() -> dict[Path, str]:
    return {path: path.read_text(encoding="utf-8") for path in sorted(LIB.rglob("*.py")) if path != VERSIONS_PY}


def test_the_walks_find_what_they_look_for():
    # each walk must see the forms it forbids, or the tests below would pass on nothing
    assert version_numbers_compared("if eff.version >= 3:\n    pass\nx = 1 if version == 2 else 0\n") == [
        "1: eff.version >= 3", "3: version == 2"]
    assert version_numbers_compared("SPLIT = (3, 4)\nok = version in SPLIT or 3 < version or n >= 3\n") == [
        "2: version in SPLIT", "2: 3 < version"]
    assert tables_keyed_by_version('CRI = {1: "cri", 2: "io.containerd.grpc.v1.cri"}\nX = {0: 1, 9: 2}\n') == [
        '1: {1: "cri", 2: "io.containerd.grpc.v1.cri"}']
    assert plugin_tables_named('"""io.containerd.grpc.v1.cri"""\nA = ("plugins", "io.containerd.cri.v1.runtime")\n') == [
        "2: 'io.containerd.cri.v1.runtime'"]
    assert len(_library()) > 60


def test_no_module_but_versions_compares_a_config_version_with_a_number():
    """Every decision that differs by version reads a field of that version's record (versions.of): a new
    version is one record, and no `if version >= 3` elsewhere takes it for another."""
    found = [f"{path.relative_to(LIB.parent)}:{hit}" for path, source in _library().items()
             for hit in version_numbers_compared(source)]
    assert found == []


def test_no_module_but_versions_keeps_a_table_keyed_by_version():
    found = [f"{path.relative_to(LIB.parent)}:{hit}" for path, source in _library().items()
             for hit in tables_keyed_by_version(source)]
    assert found == []


def test_no_module_but_versions_names_a_version_s_plugin_table():
    found = [f"{path.relative_to(LIB.parent)}:{hit}" for path, source in _library().items()
             if path not in PLUGIN_NAMES_KEPT for hit in plugin_tables_named(source)]
    assert found == []
    assert all(plugin_tables_named(_library()[path]) for path in PLUGIN_NAMES_KEPT)  # each exception still needed


def test_every_record_is_whole():
    records = list(versions.VERSIONS.values())
    assert [v.number for v in records] == sorted(versions.VERSIONS) == list(versions.VERSIONS)
    assert {versions.EMPTY_FILE_VERSION, versions.NO_VERSION_LINE} <= set(versions.VERSIONS)
    writers = [v.written_from for v in records if v.written_from is not None]
    assert writers == sorted(writers) and len(set(writers)) == len(writers)
    for v in records:
        assert v.cri_plugin[0] == "plugins" and v.runtime_path("x") == v.cri_plugin + ("containerd", "runtimes", "x")
        assert v.plugin_id in v.cri_disabled_by and v.who_reads in catalog()
        if v.misplaced_code is not None:
            assert v.misplaced_code in catalog()
        for other in (v.also_reads, v.migrates_runtimes_of):
            if other is not None:
                assert other in versions.VERSIONS and other != v.number
        assert versions.of_dump(v.number).dumped and versions.nearest(v.number) is v
    assert versions.of_dump(1).number == versions.of_dump("x").number == versions.EMPTY_FILE_VERSION  # 1.x dumps 2
    assert versions.nearest(0) is records[0] and versions.nearest(99) is records[-1]


def test_a_new_version_is_one_record(tmp_path, monkeypatch):
    """A version 5 that moves the CRI runtimes to a plugin of its own, added as one record and nothing else:
    reading, writing, the CDI keys, the throw-away daemon's copy, containerd's dump, the promise and the CRI
    plugin's disabling all follow it."""
    from runbook_lib.containerd import cdi_config, invariant, node, throwaway, verify
    plugin = "io.containerd.cri.v9.runtime"
    v5 = dataclasses.replace(versions.of(4), number=5, cri_plugin=("plugins", plugin),
                             cri_disabled_by=("io.containerd.grpc.v1.cri", plugin), written_from=(2, 9))
    monkeypatch.setitem(versions.VERSIONS, 5, v5)
    assert versions.version_for_containerd("v2.9.0") == 5 and versions.version_for_containerd("v2.3.0") == 4
    assert versions.detect_version({"version": 5}, path="/c.toml", empty=False) == 5
    assert "5" in read_by(5).en

    root = make_root(tmp_path, f"version = 5\n\n[plugins.'{plugin}'.containerd.runtimes.runc]\n"
                               "  runtime_type = 'io.containerd.runc.v2'\n".encode())
    rb = run_steps(root)
    assert rb.ok(), [p.what.en for r in rb.results.values() for p in r.problems]
    data = tomllib.loads((root / CONFIG).read_text())
    assert set(data["plugins"]) == {plugin}  # nothing written where version 4 keeps the runtimes
    assert data["plugins"][plugin]["containerd"]["runtimes"]["nvidia"]["options"]["BinaryName"] == \
        "/usr/bin/nvidia-container-runtime"
    assert (root / "root/toolkit/report.txt").read_text().startswith("CONFIG_VERSION=5\n")

    assert cdi_config.cdi_settings(data, 5).plugin == ("plugins", plugin)
    sandbox = tomllib.loads(throwaway.sandbox_config(data, 5, tmp_path))
    assert sandbox["plugins"][plugin]["restrict_oom_score_adj"] is True and "nvidia" in sandbox["plugins"][plugin]["containerd"]["runtimes"]
    assert sorted(verify.runtimes_table(data)["runtimes"]) == ["nvidia", "runc"]
    assert invariant.without_ours(data, ("nvidia",))["plugins"][plugin]["containerd"]["runtimes"] == {
        "runc": data["plugins"][plugin]["containerd"]["runtimes"]["runc"]}
    assert node.cri_disabled_by({"disabled_plugins": [plugin, "other"]}, 5) == [plugin]
