"""What real containerd 1.6 does with each broken state (tests/fixtures/broken/README.md records it).

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


def test_good_config_is_read_as_written(containerd):
    got = containerd_reading(containerd, GOOD_CONFIG, Path("/"), "nvidia")
    assert got["runtime_names"] == ["nvidia", "runc"]
    assert got["default_runtime_name"] == "runc"
    assert got["runtime"]["runtime_type"] == "io.containerd.runc.v2"
    assert got["runtime"]["options"] == {"BinaryName": "/usr/bin/nvidia-container-runtime",
                                         "SystemdCgroup": True}


# name -> (containerd's error, as a regex; the 1-based line it names and the key written on that line, or
# None when it names none)
REJECTED = {
    "toml-syntax-error": (r"failed to load TOML: .*toml-syntax-error\.toml: \(34, 27\): "
                          r"unescaped control character U\+000A", (34, "BinaryName")),
    "duplicate-key": (r"failed to load TOML: .*duplicate-key\.toml: \(32, 11\): The following key was defined "
                      r"twice: plugins\.io\.containerd\.grpc\.v1\.cri\.containerd\.runtimes\.nvidia\.runtime_type",
                      (32, "runtime_type")),
    "unquoted-dotted-header": (r'failed to load TOML from .*unquoted-dotted-header\.toml: '
                               r'invalid plugin key URI "io" expect io\.containerd\.x\.vx', None),
    "v1-path-in-v2-file": (r'failed to load TOML from .*v1-path-in-v2-file\.toml: '
                           r'invalid plugin key URI "cri" expect io\.containerd\.x\.vx', None),
}


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_rejected(containerd, name):
    pattern, position = REJECTED[name]
    with pytest.raises(ContainerdRejected) as caught:
        read(containerd, name)
    err = caught.value
    assert err.returncode != 0
    assert re.search(pattern, err.stderr), err.stderr
    assert re.search(pattern, err.message_ko) and re.search(pattern, err.message_en)
    if position is not None:  # the position containerd names is the line with the mistake
        line, key = position
        bad = (BROKEN / f"{name}.toml").read_text().splitlines()[line - 1]
        assert bad.strip().startswith(f"{key} ="), bad


def _dropped_nvidia(got) -> bool:
    return got["runtime_names"] == ["runc"] and got["runtime"] is None


def _v1_reading(got) -> bool:
    # Read as version 1: the whole CRI table of the file is ignored, runc falls back to built-in defaults.
    return _dropped_nvidia(got) and got["config_version"] == 2  # the dump is always written in version 2


ACCEPTED = {
    "systemdcgroup-string": lambda got: got["runtime"]["options"]["SystemdCgroup"] == "true",
    "misplaced-runtimes-without-containerd": _dropped_nvidia,
    "runtimetype-typo": lambda got: (got["runtime"]["runtime_type"] == ""
                                     and "runtimetype" not in got["runtime"]),
    "default-is-nvidia": lambda got: got["default_runtime_name"] == "nvidia",
    "no-version-line-v2-tables": _v1_reading,
    "cri-disabled": lambda got: (got["disabled_plugins"] == [CRI] and got["runtime_names"] == []
                                 and got["default_runtime_name"] is None),
    "binaryname-relative": lambda got: got["runtime"]["options"]["BinaryName"] == "nvidia-container-runtime",
    "systemdcgroup-mismatch": lambda got: got["runtime"]["options"]["SystemdCgroup"] is False,
    # containerd 1.6 does not know version 3: its tables are dropped, the stray version-2 table is read
    # and replaces the built-in runtimes, so nvidia is the only runtime (and the default "runc" is missing).
    "v2-path-in-v3-file": lambda got: (got["runtime_names"] == ["nvidia"]
                                       and got["default_runtime_name"] == "runc"),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted_but_misread(containerd, name):
    got = read(containerd, name)
    assert ACCEPTED[name](got) is True, got


def test_no_version_line_loses_every_cri_setting(containerd):
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
