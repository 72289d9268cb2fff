"""An empty config on a node with a containerd to ask gets the version that containerd itself writes (issue 14),
asked of the real containerd 1.6 through containerd_bin."""

import pytest

from grading_helpers import run_all

CONFIG = "etc/containerd/config.toml"
pytestmark = pytest.mark.real


def test_an_empty_config_is_written_in_the_version_the_real_containerd_writes(tmp_path):
    """With a containerd to ask (here the real 1.6, through containerd_bin), an empty config gets the version
    that containerd itself writes with `config default`, and the runbook's result is what it reads."""
    import shutil
    import subprocess
    import tomllib

    from realenv import need_program
    binary = need_program("containerd")
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_text("")
    results = run_all(root, containerd_bin=binary)
    assert not any(r.failed for r in results.values()), [r.text() for r in results.values() if r.failed]
    default = tomllib.loads(subprocess.run([binary, "config", "default"], capture_output=True, text=True).stdout)
    assert tomllib.loads((root / CONFIG).read_text())["version"] == default["version"]
    assert shutil.which(binary)
