"""The tests' data lives in the repository: every folder of external files says where they come from and
their licence, and the package's copies of upstream files are the same bytes as the tests' copies."""

import re
from fnmatch import fnmatch

import pytest

from helpers import CDI_SCHEMA, CONFORMANCE, FIXTURES, LAB_BASE, REPO

PACKAGE_DATA = REPO / "runbook_lib" / "data"


@pytest.mark.parametrize("folder", [FIXTURES, CONFORMANCE, CDI_SCHEMA], ids=lambda p: p.name)
def test_every_external_folder_names_its_source_and_licence(folder):
    source = (folder / "SOURCE.md").read_text()
    assert "Apache" in source and ("출처" in source and "source" in source.lower())
    listed = re.findall(r"^\| `([^`]+)`", source, flags=re.M)  # the table's first column: names or patterns
    for path in folder.rglob("*"):
        rel = str(path.relative_to(folder))
        if path.is_file() and rel != "SOURCE.md":
            assert any(fnmatch(rel, pattern) for pattern in listed), f"{rel} is not listed in {folder}/SOURCE.md"


@pytest.mark.parametrize("name", ["schema.json", "defs.json", "LICENSE"])
def test_the_packaged_cdi_schema_is_the_upstream_one(name):
    assert (PACKAGE_DATA / "cdi" / name).read_bytes() == (CDI_SCHEMA / name).read_bytes()


def test_the_packaged_base_config_is_the_lab_fixture():
    assert (PACKAGE_DATA / "config.toml.base").read_bytes() == LAB_BASE.read_bytes()


def test_no_test_reads_outside_the_repository():
    import subprocess
    found = subprocess.run(["git", "grep", "-nE", r'(\.\./shared|parent ?/ ?"shared"|"\.\." ?/ ?"shared")', "--", "tests"],
                           cwd=REPO, capture_output=True, text=True)
    assert found.stdout == "", found.stdout
