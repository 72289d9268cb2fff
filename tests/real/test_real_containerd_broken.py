"""What each real containerd (Debian's 1.6 and every pinned 2.x) does with each broken state
(tests/fixtures/broken/README.md records it), and what the runbook's step 9 says from that reading.

The diagnosis messages are written from these observations, so each test pins the exact behaviour:
containerd's error text for the files it rejects, and what its `config dump` holds for those it accepts.
"""
import re
from pathlib import Path

import pytest

import realenv
from paths import BROKEN, GOOD_CONFIG, LAB_BASE
from runbook_lib.containerd.verify import ContainerdRejected, containerd_reading

pytestmark = pytest.mark.real
CRI = "io.containerd.grpc.v1.cri"


@pytest.fixture(scope="module")
def containerd():
    return realenv.need_program("containerd")


def read(containerd, name):
    return containerd_reading(containerd, BROKEN / f"{name}.toml", Path("/"), "nvidia")


def test_every_fixture_has_a_test_and_a_readme_row():
    names = {p.stem for p in BROKEN.glob("*.toml")}
    assert names == set(REJECTED) | set(ACCEPTED)
    readme = (BROKEN / "README.md").read_text()
    for name in names:
        assert f"`{name}.toml`" in readme, name


def test_each_fixture_is_the_base_plus_one_mistake():
    import difflib
    base = set(LAB_BASE.read_text().splitlines())
    good = GOOD_CONFIG.read_text().splitlines()
    assert base <= set(good)
    for path in BROKEN.glob("*.toml"):
        if path.stem == "v2-path-in-v3-file":
            continue  # the lab base in version-3 layout; its nvidia table is the good one, see the README
        diff = [ln for ln in difflib.unified_diff(good, path.read_text().splitlines(), n=0, lineterm="")
                if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
        # one mistake: one line added, removed or changed (an unquoted header pair counts as one mistake)
        assert 1 <= len(diff) <= 4, (path.name, diff)


def test_good_config_is_read_as_written(every_containerd):
    got = containerd_reading(every_containerd, GOOD_CONFIG, Path("/"), "nvidia")
    assert got["runtime_names"] == ["nvidia", "runc"]
    assert got["default_runtime_name"] == "runc"
    assert got["runtime"]["runtime_type"] == "io.containerd.runc.v2"
    assert got["runtime"]["options"] == {"BinaryName": "/usr/bin/nvidia-container-runtime",
                                         "SystemdCgroup": True}


# What each real containerd does with each broken state, by release family ("1.6", "2.2", "2.3", "2.4"; "2.x"
# for every 2.x release that reads it the same way): ("rejects", containerd's error as a regex, the 1-based
# line it names and the key written there, or None) or ("reads", what its dump shows); and the runbook's
# finding from that reading (step 9: its codes, and the line it names). A new release with no row fails here.
def rejects(pattern, line=None, key=None):
    return ("rejects", pattern, (line, key) if line else None)


def reads(check):
    return ("reads", check, None)


def _dropped_nvidia(got) -> bool:
    return got["runtime_names"] == ["runc"] and got["runtime"] is None


def _read_as_written(got) -> bool:
    return got["runtime"]["options"] == {"BinaryName": "/usr/bin/nvidia-container-runtime", "SystemdCgroup": True}


MISSING = [("containerd.reads.runtime_missing", None)]
CASES = {
    "toml-syntax-error": {
        "1.6": (rejects(r"failed to load TOML: .*toml-syntax-error\.toml: \(34, 27\): unescaped control character U\+000A",
                        34, "BinaryName"), [("containerd.rejects", 34)]),
        "2.x": (rejects(r"failed to unmarshal TOML at row 34 column 60: toml: basic strings cannot have new lines",
                        34, "BinaryName"), [("containerd.rejects", 34)])},
    "duplicate-key": {
        "1.6": (rejects(r"failed to load TOML: .*duplicate-key\.toml: \(32, 11\): The following key was defined "
                        r"twice: plugins\.io\.containerd\.grpc\.v1\.cri\.containerd\.runtimes\.nvidia\.runtime_type",
                        32, "runtime_type"), [("containerd.rejects", 32)]),
        # 2.2 and 2.3 name no row for a key defined twice; 2.4 does
        "2.2": (rejects(r"failed to unmarshal TOML: toml: key runtime_type is already defined"), [("containerd.rejects", None)]),
        "2.3": (rejects(r"failed to unmarshal TOML: toml: key runtime_type is already defined"), [("containerd.rejects", None)]),
        "2.4": (rejects(r"failed to unmarshal TOML at row 32 column 11: toml: key runtime_type is already defined",
                        32, "runtime_type"), [("containerd.rejects", 32)])},
    # 1.6 refuses a plugin key that is not a URI; 2.x reads the file and the table is simply not the CRI's
    "unquoted-dotted-header": {
        "1.6": (rejects(r'failed to load TOML from .*unquoted-dotted-header\.toml: '
                        r'invalid plugin key URI "io" expect io\.containerd\.x\.vx'), [("containerd.rejects", None)]),
        "2.x": (reads(_dropped_nvidia), MISSING)},
    "v1-path-in-v2-file": {
        "1.6": (rejects(r'failed to load TOML from .*v1-path-in-v2-file\.toml: '
                        r'invalid plugin key URI "cri" expect io\.containerd\.x\.vx'), [("containerd.rejects", None)]),
        "2.x": (reads(_dropped_nvidia), MISSING)},
    "systemdcgroup-string": {"1.6": (reads(lambda got: got["runtime"]["options"]["SystemdCgroup"] == "true"),
                                     [("containerd.reads.string_boolean", None)])},
    "misplaced-runtimes-without-containerd": {"1.6": (reads(_dropped_nvidia), MISSING)},
    "runtimetype-typo": {"1.6": (reads(lambda got: got["runtime"]["runtime_type"] == "" and "runtimetype" not in got["runtime"]),
                                 [("containerd.reads.value_differs", None), ("containerd.reads.key_dropped", None)])},
    "default-is-nvidia": {"1.6": (reads(lambda got: got["default_runtime_name"] == "nvidia"),
                                  [("containerd.reads.default_is_runtime", None)])},
    # no version line: 1.6 and 2.2 read version 1 and drop the version-2 tables; 2.3 and later migrate them
    "no-version-line-v2-tables": {
        "1.6": (reads(lambda got: _dropped_nvidia(got) and got["config_version"] == 2), MISSING),  # 1.6 dumps version 2
        "2.2": (reads(lambda got: _dropped_nvidia(got) and got["config_version"] == 3), MISSING),
        "2.3": (reads(_read_as_written), []),
        "2.4": (reads(_read_as_written), [])},
    # 1.x has no runtime plugin beside the gRPC one: disabling it leaves no runtimes; 2.x still dumps its
    # io.containerd.cri.v1.runtime tables, and the runbook still says the CRI service is off
    "cri-disabled": {
        "1.6": (reads(lambda got: got["disabled_plugins"] == [CRI] and got["runtime_names"] == []
                      and got["default_runtime_name"] is None), [("containerd.reads.cri_disabled", None)]),
        "2.x": (reads(lambda got: got["disabled_plugins"] == [CRI] and got["runtime_names"] == ["nvidia", "runc"]),
                [("containerd.reads.cri_disabled", None)])},
    "binaryname-relative": {"1.6": (reads(lambda got: got["runtime"]["options"]["BinaryName"] == "nvidia-container-runtime"),
                                    [("containerd.reads.value_differs", None)])},
    "systemdcgroup-mismatch": {"1.6": (reads(lambda got: got["runtime"]["options"]["SystemdCgroup"] is False),
                                       [("containerd.reads.value_differs", None)])},
    # 1.6 knows no version 3: its tables are dropped, the stray version-2 table is read and replaces the built-in
    # runtimes, so nvidia is the only runtime (and the default "runc" is missing). 2.x reads the version-3 runc
    # table, whose runtimes switch the migration of the version-2 one off: nvidia is not read
    "v2-path-in-v3-file": {
        "1.6": (reads(lambda got: got["runtime_names"] == ["nvidia"] and got["default_runtime_name"] == "runc"),
                [("containerd.reads.version_unknown", None), ("containerd.reads.default_not_a_runtime", None)]),
        "2.x": (reads(_dropped_nvidia), MISSING)},
}
SAME_FOR_ALL = {"systemdcgroup-string", "misplaced-runtimes-without-containerd", "runtimetype-typo", "default-is-nvidia",
                "binaryname-relative", "systemdcgroup-mismatch"}  # every release reads these as 1.6 does
REJECTED = sorted(n for n, row in CASES.items() if row["1.6"][0][0] == "rejects")
ACCEPTED = sorted(set(CASES) - set(REJECTED))


def expectation(name: str, containerd):
    """The row for this release: its own family, else "2.x" for any 2.x, else 1.6's for what all read alike."""
    row = CASES[name]
    family = "1.6" if not containerd.is_2x else "{}.{}".format(*containerd.minor)
    found = row.get(family) or (row.get("2.x") if containerd.is_2x else None)
    if found is None and name in SAME_FOR_ALL:
        found = row["1.6"]
    if found is None:
        pytest.fail(f"no observation of containerd {containerd.label} for {name}: observe it and add its row")
    return found


@pytest.mark.parametrize("name", sorted(CASES))
def test_what_each_real_containerd_does_with_each_broken_state(every_containerd, name):
    (kind, expected, position), _ = expectation(name, every_containerd)
    if kind == "reads":
        got = read(every_containerd, name)
        assert expected(got) is True, got
        return
    with pytest.raises(ContainerdRejected) as caught:
        read(every_containerd, name)
    err = caught.value
    assert err.returncode != 0
    assert re.search(expected, err.stderr), err.stderr  # containerd's own words
    assert re.search(expected, err.message_ko) and re.search(expected, err.message_en)
    if position is not None:  # the position containerd names is the line with the mistake
        line, key = position
        bad = (BROKEN / f"{name}.toml").read_text().splitlines()[line - 1]
        assert bad.strip().startswith(f"{key} ="), bad


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_runbook_says_what_each_real_containerd_read(every_containerd, name, tmp_path):
    """Step 9's finding, from that containerd's own reading: its code, and the line containerd names."""
    import shutil

    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run
    _, findings = expectation(name, every_containerd)
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    shutil.copy(BROKEN / f"{name}.toml", root / "etc/containerd/config.toml")
    rb = Run(validate(root=str(root), mode="check", containerd_bin=every_containerd)).start()
    try:
        rb.run_all()
    finally:
        rb.finish()
    got = rb.results["containerd"]
    assert [(p.code, p.line) for p in got.problems] == findings
    assert got.status == ("failed" if findings else "passed")


def test_no_version_line_loses_every_cri_setting(containerd):
    """1.6 (2.3 and later migrate the tables instead: CASES)."""
    import tomllib

    from runbook_lib.containerd.verify import containerd_dump
    dump = tomllib.loads(containerd_dump(containerd, BROKEN / "no-version-line-v2-tables.toml", Path("/")))
    cri = dump["plugins"][CRI]
    assert cri["sandbox_image"] != "registry.airgap.local:5000/pause:3.9"  # the file's value is not used
    assert cri["containerd"]["runtimes"]["runc"]["options"]["SystemdCgroup"] is False  # built-in default


def test_no_version_line_warns_version_1(containerd):
    import subprocess
    proc = subprocess.run([containerd, "--config", str(BROKEN / "no-version-line-v2-tables.toml"),
                           "config", "dump"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert "containerd config version `1` has been deprecated" in proc.stderr
