"""The RuntimeClass the runbook writes, checked by Kubernetes' own published schemas (kubernetes-validate)
for every Kubernetes minor version the package ships with node.k8s.io/v1, plus the name rules that only
the API server holds.

Each version is checked once (all_versions() lists each twice, for its -local and -local-strict folders), and
each schema file is read once for all the documents validated against it (_each_schema_read_once)."""
import functools

import pytest
import yaml

from runbook_lib.k8s import runtimeclass
from runbook_lib.k8s.names import dns1123_label_problem

pytestmark = pytest.mark.real

kv = pytest.importorskip("kubernetes_validate")
from kubernetes_validate import utils as kv_utils  # noqa: E402

ALL_VERSIONS = sorted(set(kv_utils.all_versions()), key=lambda v: tuple(map(int, v.split("."))))
SAMPLE = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "x"}, "handler": "x"}


# kubernetes-validate reads a version's schema and its 1.3 MB _definitions.json from disk at every call: read once
# for the discovery below and every document and test of the module (the schemas are never changed)
_read_once = functools.lru_cache(maxsize=None)(kv_utils.schema_contents)


def _versions_with_runtimeclass_v1():
    found = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kv_utils, "schema_contents", _read_once)
        for version in ALL_VERSIONS:
            try:
                kv.validate(SAMPLE, version, strict=True)
            except kv_utils.SchemaNotFoundError:
                continue
            found.append(version)
    return found


VERSIONS = _versions_with_runtimeclass_v1()


@pytest.fixture(scope="module", autouse=True)
def _each_schema_read_once():
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kv_utils, "schema_contents", _read_once)
        yield


def _build(name):
    return yaml.safe_load(runtimeclass.build_runtimeclass(name))


def test_versions_were_discovered():
    assert VERSIONS and VERSIONS[-1] == ALL_VERSIONS[-1]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", ["nvidia", "nvidia-cdi", "nvidia-legacy"])  # the runtime and its variants
def test_runtimeclass_is_valid_for_every_version(version, name):
    doc = _build(name)
    assert kv.validate(doc, version, strict=True)
    assert doc["metadata"]["name"] == name and doc["handler"] == name
    assert dns1123_label_problem(doc["handler"]) is None
    assert dns1123_label_problem(doc["metadata"]["name"]) is None


@pytest.mark.parametrize("version", VERSIONS)
def test_the_schema_catches_structural_mistakes(version):
    # proves the validator is really consulted: each of these must be refused
    for bad in ({**SAMPLE, "handler": 7}, {k: v for k, v in SAMPLE.items() if k != "handler"},
                {**SAMPLE, "hander": "x"}):
        with pytest.raises(kv_utils.ValidationError):
            kv.validate(bad, version, strict=True)


@pytest.mark.parametrize("version", ALL_VERSIONS)
@pytest.mark.parametrize("api_version", runtimeclass.RETIRED_API_VERSIONS)
def test_a_retired_api_version_is_served_by_no_kubernetes_version_shipped(version, api_version):
    """runtimeclass.apiVersion.retired says the API server no longer serves these: no schema of any version the
    package ships (1.25 on) has a RuntimeClass in them, where each has node.k8s.io/v1."""
    with pytest.raises(kv_utils.SchemaNotFoundError):
        kv.validate({**SAMPLE, "apiVersion": api_version}, version, strict=True)
    assert kv.validate(SAMPLE, version, strict=True)


def test_the_schema_does_not_hold_the_name_rules():
    # why names.py exists: an invalid handler passes every schema, only the API server would refuse it
    bad = {**SAMPLE, "metadata": {"name": "Nvidia_GPU"}, "handler": "Nvidia_GPU"}
    for version in VERSIONS:
        kv.validate(bad, version, strict=True)
    assert dns1123_label_problem("Nvidia_GPU") is not None


@pytest.mark.parametrize("version", VERSIONS)
def test_the_fields_the_grader_knows_are_the_schemas(version):
    # runtimeclass.FIELDS: every other top-level field is refused by strict validation (kubectl apply's
    # default), the typos students make among them
    full = {**SAMPLE, "overhead": {"podFixed": {"memory": "1Mi"}}, "scheduling": {"nodeSelector": {"gpu": "true"}}}
    assert set(full) == set(runtimeclass.FIELDS)
    kv.validate(full, version, strict=True)
    for extra in ("handlers", "Handler", "runtimeHandler", "spec"):
        with pytest.raises(kv_utils.ValidationError):
            kv.validate({**SAMPLE, extra: "x"}, version, strict=True)
