"""environment.yml and pyproject.toml list the same runtime packages."""

import re
import tomllib

import yaml

from helpers import REPO


def names(specs):
    return {re.split(r"[<>=!~ \[]", s, maxsplit=1)[0].strip().lower().replace("_", "-") for s in specs}


CONDA_NAMES: dict[str, str] = {}  # conda-forge's name -> the PyPI package's, where they differ (none today)


def test_environment_matches_pyproject():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = names(project["dependencies"]) | names(project["optional-dependencies"]["lab"])
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    conda = {CONDA_NAMES.get(n, n) for n in names(d for d in env["dependencies"] if isinstance(d, str))} - {"python", "pip"}
    assert conda == wanted
