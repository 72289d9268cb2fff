"""The skip/fail switch itself: strict, and it really turns a skip into a failure."""
import subprocess
import sys
import textwrap

import pytest

import realenv

pytestmark = pytest.mark.real
NO_SUCH = "runbook-no-such-program-7f3a"


@pytest.mark.parametrize("value,expected", [("", False), ("0", False), ("1", True)])
def test_switch_values(value, expected):
    assert realenv.real_required({realenv.REQUIRE_ENV: value}) is expected


def test_switch_unset_is_skip():
    assert realenv.real_required({}) is False


@pytest.mark.parametrize("value", ["true", "yes", " 1", "2"])
def test_switch_refuses_other_values(value):
    with pytest.raises(ValueError, match="RUNBOOK_REQUIRE_REAL"):
        realenv.real_required({realenv.REQUIRE_ENV: value})


def test_missing_program_skips_when_not_required():
    with pytest.raises(pytest.skip.Exception):
        realenv.need_program(NO_SUCH, {})


def test_missing_program_fails_when_required():
    with pytest.raises(pytest.fail.Exception, match=NO_SUCH):
        realenv.need_program(NO_SUCH, {realenv.REQUIRE_ENV: "1"})


def test_present_program_found():
    assert realenv.need_program("sh", {realenv.REQUIRE_ENV: "1"}).endswith("/sh")


@pytest.mark.parametrize("require,outcome", [("0", "skipped"), ("1", "failed")])
def test_any_skip_becomes_failure_under_ci(tmp_path, require, outcome):
    # A copy of this folder's conftest in a scratch tree, with a test that skips for another reason.
    real = tmp_path / "tests" / "real"
    real.mkdir(parents=True)
    here = __import__("pathlib").Path(__file__).parent
    for name in ("conftest.py", "realenv.py"):
        (real / name).write_text((here / name).read_text())
    (tmp_path / "scripts").mkdir()  # the pinned containerd 2.x releases the conftest's fixtures are made from
    (tmp_path / "scripts" / "containerd2-versions.txt").write_text(
        (here.parents[1] / "scripts" / "containerd2-versions.txt").read_text())
    (real / "test_skips.py").write_text(textwrap.dedent("""
        import pytest
        def test_skip_for_other_reason():
            pytest.importorskip("runbook_no_such_module_7f3a")
    """))
    env = dict(__import__("os").environ, **{realenv.REQUIRE_ENV: require})
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(real)],
                          cwd=tmp_path, capture_output=True, text=True, env=env)
    assert f"1 {outcome}" in proc.stdout, proc.stdout + proc.stderr
