"""The catalog's JSON cache (runbook_lib/findings/catalog.py: CACHE): the same catalog as the YAML, and never read
once findings.yaml has changed."""

from __future__ import annotations

import json
from importlib import resources

from runbook_lib.findings import catalog as cat

YAML = (resources.files("runbook_lib") / "data" / "findings.yaml").read_text(encoding="utf-8")


def test_the_cache_written_is_the_yaml_catalog(tmp_path):
    path = tmp_path / cat.CACHE
    doc = {"yaml_sha256": cat.digest(YAML), "catalog": cat.parse(YAML)}
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    assert cat.cached(path, YAML) == cat.parse(YAML)


def test_a_cache_of_another_yaml_is_not_read(tmp_path):
    path = tmp_path / cat.CACHE
    edited = YAML + "\ncache.test.added: {ko: \"새 문장\", en: \"a new sentence\"}\n"
    path.write_text(json.dumps({"yaml_sha256": cat.digest(YAML), "catalog": cat.parse(YAML)}), encoding="utf-8")
    assert cat.cached(path, edited) is None
    assert "cache.test.added" in cat.parse(edited)


def test_a_missing_or_broken_cache_is_not_read(tmp_path):
    assert cat.cached(tmp_path / "none.json", YAML) is None
    (tmp_path / "broken.json").write_text('{"yaml_sha256": "', encoding="utf-8")
    assert cat.cached(tmp_path / "broken.json", YAML) is None
    (tmp_path / "list.json").write_text("[]", encoding="utf-8")
    assert cat.cached(tmp_path / "list.json", YAML) is None


def test_the_package_reads_the_catalog_its_yaml_says():
    assert cat.catalog() == cat.parse(YAML)
