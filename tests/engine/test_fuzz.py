"""Fuzzing the readers and the verdicts (hypothesis): for every input a finding or a pass, never a traceback,
within a time budget (hypothesis's deadline) and a memory budget (tracemalloc's peak).

The normal test run checks a fixed set of examples (profile "ci": derandomized, so CI runs the same ones each
time); `make fuzz` runs many more with fresh random choices (profile "fuzz", RUNBOOK_FUZZ=fuzz)."""
from __future__ import annotations

import os
import tracemalloc
from datetime import timedelta
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grading_helpers import check
from runbook_lib.cdi.spec import load_spec, spec_problems
from runbook_lib.containerd.distro.render import render_rancher_template
from runbook_lib.containerd.load import load_toml
from runbook_lib.steps.base import FAILED, STATUSES as ALL_STATUSES
from runbook_lib.findings.errors import RunbookError
from runbook_lib.k8s.runtimeclass import load_runtimeclass, runtimeclass_problems
from runbook_lib.lab.init_root import add_mistakes, finished_lab
from runbook_lib.lab.mistakes import MISTAKES

_SLOW = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large]
settings.register_profile("ci", max_examples=25, derandomize=True, database=None, deadline=timedelta(seconds=10),
                          suppress_health_check=_SLOW)
settings.register_profile("fuzz", max_examples=1500, deadline=timedelta(seconds=10), suppress_health_check=_SLOW)
settings.load_profile(os.environ.get("RUNBOOK_FUZZ", "ci"))

MEMORY_BUDGET = 64 * 1024 * 1024  # what one parser may allocate for one input (a real file takes kilobytes)
BASE = (resources.files("runbook_lib") / "data" / "config.toml.base").read_text()
SPEC = "/etc/cdi/nvidia.yaml"
CONFIG = "/etc/containerd/config.toml"


def _budgeted(fn, *args):
    """fn(*args): its value, or the RunbookError it raised (a finding); any other exception fails the test."""
    tracemalloc.start()
    try:
        return fn(*args)
    except RunbookError as exc:
        assert exc.code and exc.what.ko and exc.what.en, "a finding has a code and words in both languages"
        return exc
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < MEMORY_BUDGET, f"{peak // 1024 // 1024} MiB for one input"


# --- text near what students write: pieces of real files, cut, repeated and spliced ---------------------------

TOML_PIECES = [*BASE.splitlines(keepends=True), "[", "]", "{", "}", '"', "'''", '"""', "=", "\n", "#", "\t",
               "\x00", "\ufeff", "version = 3\n", 'imports = ["/etc/containerd/conf.d/*.toml"]\n', "a = [" * 40,
               "[[plugins]]\n", "x = &a\n", "{{ template \"base\" . }}\n", "{{ .NodeConfig }}\n"]
YAML_PIECES = ['cdiVersion: "0.5.0"\n', "kind: nvidia.com/gpu\n", "devices:\n", "  - name: all\n",
               "    containerEdits:\n", "      deviceNodes:\n", "        - path: /dev/nvidia0\n", "&a ", "*a ", "[", "]",
               "{", "}", "- ", ": ", "\t", "---\n", "!!python/object:os.system ", "'", '"', "\n", "env: [A=1]\n",
               "apiVersion: node.k8s.io/v1\n", "kind: RuntimeClass\n", "metadata:\n", "  name: nvidia\n",
               "handler: nvidia\n", "x: &x [1, 2]\n", "y: [*x, *x, *x, *x]\n"]


def spliced(pieces: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.one_of(st.sampled_from(pieces), st.text(max_size=8)), max_size=60).map("".join)


@given(st.one_of(spliced(TOML_PIECES), st.binary(max_size=300).map(lambda b: b.decode("latin-1"))))
def test_toml_reader(text):
    got = _budgeted(load_toml, text.encode("utf-8", "surrogatepass"), CONFIG)
    if not isinstance(got, RunbookError):  # refused with a finding, or read: then as a table
        assert isinstance(got.data, dict), got


@given(spliced(TOML_PIECES + ["{{ template \"base\" . }}", "{{ if .NodeConfig.AgentConfig.Snapshotter }}",
                              "{{ end }}", "{{", "}}", "{{- ", " -}}"]))
def test_template_renderer(template):
    got = _budgeted(render_rancher_template, template, BASE, None)
    if not isinstance(got, RunbookError):
        _budgeted(load_toml, got.encode("utf-8", "surrogatepass"), CONFIG)


@given(spliced(YAML_PIECES))
def test_cdi_spec_reader_and_verdict(text):
    doc = _budgeted(load_spec, text, SPEC)
    if not isinstance(doc, RunbookError):
        problems = _budgeted(spec_problems, doc, SPEC, text)
        assert isinstance(problems, list)


@given(spliced(YAML_PIECES))
def test_runtimeclass_reader_and_verdict(text):
    path = "/root/toolkit/runtimeclass.yaml"
    doc = _budgeted(load_runtimeclass, text, path)
    if not isinstance(doc, RunbookError):
        assert isinstance(_budgeted(runtimeclass_problems, doc, "nvidia", path, text), list)


# --- whole student roots: a finished lab, random mistakes, random toolkit files ------------------------------

STATUSES = set(ALL_STATUSES)  # every status a step can have, blocked included (steps/base.py)
TOOLKIT = ("default.txt", "parsed.txt", "cdi-keys.txt", "report.txt", "runtimeclass.yaml")


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fuzz") / "finished"
    finished_lab(str(root))
    return root


def _copy(src: Path, dst: Path) -> Path:
    import shutil

    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, symlinks=True)
    return dst


def _judged(root: Path) -> None:
    results = check(root)
    assert results, "no step was judged"
    for r in results.values():
        assert r.status in STATUSES, r.status
        if r.status == FAILED:
            assert r.problems and all(p.code and p.what.en and p.what.ko for p in r.problems)


@settings(max_examples=int(os.environ.get("RUNBOOK_FUZZ_ROOTS", "8")), deadline=timedelta(seconds=60))
@given(st.lists(st.sampled_from([m.kind for m in MISTAKES]), min_size=1, max_size=3, unique=True))
def test_roots_of_random_mistakes(finished, tmp_path_factory, kinds):
    root = _copy(finished, tmp_path_factory.getbasetemp() / "mistakes")
    try:
        add_mistakes(str(root), ",".join(kinds))
    except ValueError:
        return  # two mistakes with no room for both in one lab: lab-init refuses them, and says so
    _judged(root)


@settings(max_examples=int(os.environ.get("RUNBOOK_FUZZ_ROOTS", "8")), deadline=timedelta(seconds=60))
@given(st.sampled_from(TOOLKIT), st.one_of(spliced(YAML_PIECES + TOML_PIECES), st.binary(max_size=200)))
def test_roots_with_random_toolkit_files(finished, tmp_path_factory, name, content):
    root = _copy(finished, tmp_path_factory.getbasetemp() / "toolkit")
    path = root / "root" / "toolkit" / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
    _judged(root)
