"""layout=dropin: conf.d/99-<runtime>.toml plus an imports entry, with content that containerd's merge cannot
use to lose another runtime; the containerd fixtures in both layouts, asked of containerd 1.6 where it can read
them; and the notebook run by papermill with `-p layout dropin`."""

import tomllib

import pytest

from helpers import plan_diff, run_notebook, step_records, tree_state
from layouts import CONFIG, DROPIN, FIXTURE_VERSIONS, containerd_sees, effective, fixture, make_root, run_steps, runtimes, toml
from runbook_lib.containerd.dropin import add_import, render_document
from runbook_lib.containerd.load import load_toml
from runbook_lib.engine.result import FAILED, UNCHANGED

V2_MAIN = """version = 2

[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "runc"

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
"""


@pytest.mark.parametrize("layout", ["inplace", "dropin"])
@pytest.mark.parametrize("name", FIXTURE_VERSIONS)
def test_each_fixture_in_each_layout(tmp_path, name, layout):
    root = make_root(tmp_path, fixture(name))
    before = set(runtimes(root))
    rb = run_steps(root, layout=layout)
    assert rb.ok(), [p.what.en for r in rb.results.values() for p in r.problems]
    assert (root / DROPIN).exists() == (layout == "dropin")
    got = runtimes(root)
    assert before <= set(got) and got["nvidia"]["options"]["BinaryName"] == "/usr/bin/nvidia-container-runtime"
    state = tree_state(root)
    again = run_steps(root, layout=layout)
    assert all(r.status == UNCHANGED for r in again.results.values()) and tree_state(root) == state
    if FIXTURE_VERSIONS[name] == 3:
        # containerd 1.6 (the one installed) does not know version 3: it would silently drop these tables.
        # v3 is checked with our own effective computation, which merges as containerd 2.x does.
        assert effective(root).merge == "containerd-2.x"
        return
    seen = containerd_sees(root)
    assert seen["runtime"]["options"]["BinaryName"] == "/usr/bin/nvidia-container-runtime"
    assert seen["runtime"]["options"]["SystemdCgroup"] is True
    assert set(seen["runtime_names"]) == set(got) and seen["default_runtime_name"] == "runc"


@pytest.mark.parametrize("name", ["containerd-1.6.20-default.toml", "v1-no-version-line.toml"])
def test_v1_v2_dropin_carries_the_whole_cri_table_and_the_main_files_version(tmp_path, name):
    root = make_root(tmp_path, fixture(name))
    run_steps(root, steps=[1, 2], layout="dropin")
    drop, eff = toml(root, DROPIN), effective(root)
    assert drop["version"] == FIXTURE_VERSIONS[name] and list(drop) == ["version", "plugins"]
    (plugin,) = drop["plugins"]
    assert drop["plugins"][plugin] == eff.data["plugins"][plugin]


def test_v3_dropin_holds_only_the_runtime_in_single_quotes(tmp_path):
    root = make_root(tmp_path, fixture("containerd-2.0-docs-config-v3.toml"))
    run_steps(root, steps=[1, 2], layout="dropin")
    drop = toml(root, DROPIN)
    assert drop["version"] == 3
    assert list(drop["plugins"]) == ["io.containerd.cri.v1.runtime"]
    assert list(drop["plugins"]["io.containerd.cri.v1.runtime"]["containerd"]["runtimes"]) == ["nvidia"]
    text = (root / DROPIN).read_text()
    assert "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.nvidia]" in text and '"' not in text
    assert "imports = ['/etc/containerd/conf.d/99-nvidia.toml']\n" in (root / CONFIG).read_text()


def test_an_import_glob_that_already_covers_the_dropin_leaves_config_toml_alone(tmp_path):
    main = 'imports = ["/etc/containerd/conf.d/*.toml"]\n' + V2_MAIN
    root = make_root(tmp_path, main.encode())
    rb = run_steps(root, steps=[1, 2], layout="dropin")
    assert (root / CONFIG).read_text() == main
    assert any("already cover" in n.en for n in rb.results["runtime"].notes)
    assert "nvidia" in runtimes(root)


@pytest.mark.parametrize("before,after", [
    ("version = 2\n\n[grpc]\n", 'version = 2\nimports = ["/x.toml"]\n\n[grpc]\n'),
    ("# head\n[grpc]\n", '# head\n[grpc]\n'.replace("# head", 'imports = ["/x.toml"]\n\n# head')),
    ('imports = []\nversion = 2\n', 'imports = ["/x.toml"]\nversion = 2\n'),
    ('imports = ["/a.toml"]  # site\n', 'imports = ["/a.toml", "/x.toml"]  # site\n'),
    ('imports = [\n  "/a.toml"\n]\n', 'imports = [\n  "/a.toml",\n  "/x.toml",\n]\n'),
    ("version = 3\n[plugins.'a']\n  x = 'y'\n", "version = 3\nimports = ['/x.toml']\n[plugins.'a']\n  x = 'y'\n"),
])
def test_the_imports_entry_is_added_in_the_files_style_before_the_first_table(before, after):
    assert add_import(load_toml(before.encode(), "/c.toml"), "/x.toml") == after


def test_a_later_import_that_replaces_the_cri_table_stops_before_writing(tmp_path):
    """containerd 1.x: conf.d/zz-site.toml is read after 99-nvidia.toml and replaces the whole CRI table."""
    main = 'imports = ["/etc/containerd/conf.d/*.toml"]\n' + V2_MAIN
    site = V2_MAIN + '\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.crun]\n  runtime_type = "io.containerd.runc.v2"\n'
    root = make_root(tmp_path, main.encode(), {"etc/containerd/conf.d/zz-site.toml": site})
    state = tree_state(root / "etc")
    rb = run_steps(root, steps=[2], layout="dropin")
    assert rb.results["runtime"].status == FAILED and "nothing was written" in rb.results["runtime"].message.en
    assert "after merging imports" in rb.results["runtime"].message.en and "imports 병합" in rb.results["runtime"].message.ko
    assert "overrides the CRI plugin table" in rb.results["runtime"].problems[0].fix.en
    assert tree_state(root / "etc") == state


def test_check_mode_writes_nothing_and_reports_the_dropin_needed(tmp_path):
    root = make_root(tmp_path, fixture("containerd-1.6.20-default.toml"))
    run_steps(root, steps=[1], layout="dropin")
    state = tree_state(root)
    rb = run_steps(root, steps=[2], layout="dropin", mode="check")
    assert rb.results["runtime"].status == FAILED and "99-nvidia.toml" in rb.results["runtime"].diff
    assert tree_state(root) == state


def test_rendered_tables_read_back_equal():
    data = {"version": 2, "plugins": {"a.b": {"x": 1, "l": ["p"], "t": {"k": "v", "e": {}}, "arr": [{"n": 1}]}}}
    assert tomllib.loads(render_document(data)) == data


@pytest.mark.slow
def test_the_notebook_with_layout_dropin(tmp_path):
    root = make_root(tmp_path, fixture("containerd-1.6.20-default.toml"))
    nb = run_notebook(root, tmp_path / "out.ipynb", layout="dropin")
    records = step_records(nb)
    assert all(records[n]["status"] != "failed" for n in range(1, 9))
    assert records[2]["status"] == "changed" and any("99-nvidia.toml" in line for line in plan_diff(nb, "runtime"))
    assert records["restart"]["status"] == "skipped"
    assert "nvidia" in toml(root, DROPIN)["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]
    assert (root / "root/toolkit/parsed.txt").read_text() == "VERSION=2\nRUNTIMES=runc,nvidia\n"


def test_a_runtime_already_registered_in_place_gets_no_dropin(tmp_path):
    root = make_root(tmp_path, fixture("containerd-1.6.20-default.toml"))
    run_steps(root, steps=[1, 2])
    config = (root / CONFIG).read_bytes()
    rb = run_steps(root, steps=[2], layout="dropin")
    # what it found (issue 51): the table containerd reads, in the config itself
    assert rb.results["runtime"].status == UNCHANGED and rb.results["runtime"].message.en.startswith(
        "/etc/containerd/config.toml: containerd reads the [")
    assert (root / CONFIG).read_bytes() == config and not (root / DROPIN).exists()


def test_another_tools_file_where_a_drop_in_would_go_stops_only_the_drop_in_layout(tmp_path):
    """conf.d/99-nvidia.toml, imported and another tool's (no runbook mark, no nvidia runtime, no CRI table):
    layout=dropin refuses to overwrite it; layout=inplace writes the runtime into config.toml, which holds the
    CRI table, and leaves that file alone."""
    main = 'imports = ["/etc/containerd/conf.d/*.toml"]\n' + V2_MAIN
    theirs = '# written by the site\n[plugins."io.containerd.gc.v1.scheduler"]\n  pause_threshold = 0.02\n'
    for layout, refused in (("dropin", True), ("inplace", False)):
        root = make_root(tmp_path / layout, main.encode())
        (root / DROPIN).parent.mkdir(parents=True, exist_ok=True)
        (root / DROPIN).write_text(theirs)
        rb = run_steps(root, steps=[1, 2], layout=layout)
        codes = [p.code for p in rb.results["runtime"].problems]
        assert ("dropin.not_ours" in codes) is refused, (layout, codes)
        assert (root / DROPIN).read_text() == theirs
        assert ("nvidia" in runtimes(root)) is not refused, layout
