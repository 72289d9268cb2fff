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


# --- concurrent writers and short disks (issue 42) ------------------------------------------------------------

WRITER_EDITS = {
    "rename": lambda p, extra: (p.with_name(p.name + ".w").write_bytes(p.read_bytes() + extra),
                                p.with_name(p.name + ".w").replace(p)),
    "in-place-append": lambda p, extra: p.open("ab").write(extra),
    "in-place-rewrite": lambda p, extra: p.write_bytes(p.read_bytes().replace(b"#", b"# ", 1) + extra),
    "same-bytes-new-inode": lambda p, extra: (p.with_name(p.name + ".w").write_bytes(p.read_bytes()),
                                              p.with_name(p.name + ".w").replace(p)),
}
WRITTEN = ["config.toml", "report.txt", "runtimeclass.yaml"]


@settings(max_examples=int(os.environ.get("RUNBOOK_FUZZ_ROOTS", "8")), deadline=timedelta(seconds=60))
@given(st.sampled_from(WRITTEN), st.sampled_from(sorted(WRITER_EDITS)), st.booleans(),
       st.binary(min_size=0, max_size=40).map(lambda b: b"\n# " + b.hex().encode() + b"\n"))
def test_another_writer_in_the_window_of_any_write_is_never_lost(tmp_path_factory, monkeypatch_session, name, how,
                                                                 config_first, extra):
    """Another program edits a file the run writes, at the widest moment (between the compare and the rename,
    made wide by safe_write's test hook), on a root with or without a config: the edit is never lost. Either
    the run stops at that write with its own words and the file holds the edit (the other program's bytes);
    a run that never writes the file has nothing to lose."""
    import threading
    import time as _time

    from reliability_helpers import BASE as BASE_BYTES, make_root, run_apply
    from runbook_lib.fs.safe_write import PAUSE_ENV

    base = tmp_path_factory.mktemp("writer")
    root = make_root(base, BASE_BYTES if config_first else None)
    if name != "config.toml":  # the other files exist only from a finished run: write them once first
        run_apply(root)
    signal = base / "signal"
    signal.mkdir()
    (signal / "files").write_text(name + "\n")
    seen: dict = {}

    def writer():
        deadline = _time.monotonic() + 60
        while not (signal / "paused").exists() and not (signal / "go").exists() and _time.monotonic() < deadline:
            _time.sleep(0.005)
        if (signal / "paused").exists():
            path = Path((signal / "paused").read_text())
            if path.exists():
                WRITER_EDITS[how](path, extra)
                seen["path"], seen["bytes"] = path, path.read_bytes()
        (signal / "go").write_text("")

    if name == "report.txt":  # a second run rewrites the report only when something changed: change the name
        params = {"runtime_name": "nvidia-fuzz", "binary_name": "/usr/bin/nvidia-fuzz-runtime"}
    elif name == "runtimeclass.yaml":
        params = {"runtime_name": "nvidia-other", "binary_name": "/usr/bin/nvidia-other-runtime"}
    else:
        params = {}
    monkeypatch_session.setenv(PAUSE_ENV, str(signal))
    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        results = run_apply(root, **params)
    finally:
        monkeypatch_session.delenv(PAUSE_ENV)
        (signal / "go").write_text("")
        thread.join(60)
    if "path" not in seen:
        return  # the run never wrote that file (nothing to change there): nothing to lose
    stopped = [p.code for r in results for p in r.problems if p.code == "write.failed.file_changed_while_writing"]
    assert seen["path"].read_bytes() == seen["bytes"], "the other writer's bytes are what the file holds"
    assert stopped == ["write.failed.file_changed_while_writing"]


@pytest.fixture
def monkeypatch_session():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def _removed(root: Path) -> list:
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run

    rb = Run(validate(root=str(root), mode="remove")).start()
    try:
        rb.preflight()
        return [rb.run(step) for step in rb.steps]
    finally:
        rb.finish()


@pytest.fixture(scope="module")
def small_tmpfs(tmp_path_factory):
    import subprocess

    point = tmp_path_factory.mktemp("short") / "disk"
    point.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root / 작은 파일 시스템을 마운트하려면 root 가 필요합니다")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,nr_inodes=120", "tmpfs", str(point)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"this machine does not allow mounting / 이 머신은 마운트를 허용하지 않습니다: {done.stderr.strip()}")
    yield point
    subprocess.run(["umount", "-l", str(point)], check=True)


@settings(max_examples=int(os.environ.get("RUNBOOK_FUZZ_ROOTS", "8")), deadline=timedelta(seconds=60))
@given(st.integers(0, 60), st.integers(0, 80), st.booleans(), st.sampled_from(["apply", "remove"]))
def test_a_short_disk_of_any_fill_is_refused_or_finished_never_failed_halfway(small_tmpfs, inodes, blocks,
                                                                              config_first, mode):
    """Any mix of free inodes and free blocks on a real small tmpfs, for apply and for remove after an apply
    made on a roomy disk: refused with nothing changed, or finished; never a step failed halfway."""
    import shutil

    from helpers import tree_state
    from reliability_helpers import BASE as BASE_BYTES, run_apply

    for entry in small_tmpfs.iterdir():
        shutil.rmtree(entry)
    root = small_tmpfs / "root"
    (root / "etc/containerd").mkdir(parents=True)
    if config_first:
        (root / "etc/containerd/config.toml").write_bytes(BASE_BYTES)
    if mode == "remove":
        run_apply(root)
    filler = small_tmpfs / "filler"
    filler.mkdir()
    n = 0
    while os.statvfs(small_tmpfs).f_favail > inodes + 1:
        (filler / str(n)).touch()
        n += 1
    fs = os.statvfs(small_tmpfs)
    (filler / "blocks").write_bytes(b"\0" * max(0, fs.f_bavail - blocks) * fs.f_frsize)
    before = tree_state(root)
    try:
        results = run_apply(root) if mode == "apply" else _removed(root)
    except RunbookError as exc:  # the lock could not be taken: nothing was tried
        assert tree_state(root) == before, exc
        return
    failed = [r for r in results if r.status == FAILED]
    if failed:
        assert "write.failed.not_enough_disk_space" in {p.code for r in results for p in r.problems}, \
            [(r.id, [p.code for p in r.problems]) for r in failed]
        assert tree_state(root) == before
