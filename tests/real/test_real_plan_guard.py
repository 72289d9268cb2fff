"""The general guard of apply's promise (engine/guard.py), asked of every real containerd: a plan
that would make containerd read anything beside the nvidia runtime and the CDI settings differently refuses
before any write, and the root stays byte for byte as it was.

The break is planted through the public planning API (a step whose plan is a `run.plan_write`, as every step's
is), in a drop-in the node's config imports: a garbage-collector setting no rule of the runbook looks at, so
only containerd's own reading of the planned copy (imports resolved in the copy as on the node) can see it.
"""
from __future__ import annotations

import pytest

import realenv
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run
from runbook_lib.fs.plan import Plan
from runbook_lib.steps.base import Step
from runbook_lib.findings.messages import Msg

pytestmark = pytest.mark.real

CONFIG = "/etc/containerd/config.toml"
PLANTED = "/etc/containerd/conf.d/50-planted.toml"
GC = "io.containerd.gc.v1.scheduler"
NODE_CONFIG = {
    2: 'version = 2\nimports = ["/etc/containerd/conf.d/*.toml"]\n\n'
       '[plugins."io.containerd.grpc.v1.cri".containerd]\n  default_runtime_name = "runc"\n\n'
       '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n  runtime_type = "io.containerd.runc.v2"\n\n'
       '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\n  SystemdCgroup = true\n',
    3: 'version = 3\nimports = ["/etc/containerd/conf.d/*.toml"]\n\n'
       "[plugins.'io.containerd.cri.v1.runtime'.containerd]\n  default_runtime_name = 'runc'\n\n"
       "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]\n  runtime_type = 'io.containerd.runc.v2'\n\n"
       "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]\n  SystemdCgroup = true\n",
}


def _planting(version: int, text: str | None = None) -> Step:
    """A step that plans one more file: a drop-in that changes the garbage collector's deletion threshold."""
    text = text or f'version = {version}\n\n[plugins."{GC}"]\n  deletion_threshold = 7\n'

    def plan(run) -> Plan:
        return Plan(Msg("심기", "plant"), writes=[run.plan_write(PLANTED, text.encode())])

    return Step(99, "planted", Msg("심기", "plant"), plan, lambda run: [], judged_in_plan=False)


LOCK = "run/lock/nvidia-runtime-runbook.lock"  # the run's own lock, taken before the plan


def _files(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and str(p.relative_to(root)) != LOCK}


def _root(tmp_path, version: int):
    root = tmp_path / "root"
    (root / "etc/containerd/conf.d").mkdir(parents=True)
    (root / CONFIG.lstrip("/")).write_text(NODE_CONFIG[version])
    return root


def _preflight(root, containerd, *, plant: bool, version: int, text: str | None = None) -> Run:
    rb = Run(validate(root=str(root), mode="apply", containerd_bin=containerd, default_runtime="keep")).start()
    if plant:
        rb.steps = (*rb.steps, _planting(version, text))
    try:
        rb.preflight()
        if not rb.refused:
            rb.run_all()
    finally:
        rb.finish()
    return rb


def _planted_refusals(label, tmp_path, text: str | None = None):
    """(containerd, the refusals of an apply run with the planted file, the root's files before, the root)."""
    realenv.need_root()
    containerd = realenv.need_containerd(label)
    version = 3 if containerd.is_2x else 2
    root = _root(tmp_path, version)
    before = _files(root)
    rb = _preflight(root, containerd, plant=True, version=version,
                    text=text.format(version=version) if text else None)
    return containerd, [(step.id, p) for step, p in rb.refusals()], before, root


@pytest.mark.parametrize("label", realenv.containerd_labels())
def test_a_planned_change_only_containerd_reads_refuses_before_any_write(label, tmp_path):
    containerd, found, before, root = _planted_refusals(label, tmp_path)
    assert [(sid, p.code) for sid, p in found] == [("containerd", "containerd.plan.changed_beside")]
    problem = found[0][1]
    assert f'plugins."{GC}".deletion_threshold' in problem.what.en  # what changed, from what to what
    assert problem.values["key"] == "deletion_threshold" and problem.values["table"] == f'[plugins."{GC}"]'
    assert problem.values["version"] in containerd_version_words(containerd)
    assert f"`deletion_threshold = {problem.values['value']}`" in problem.fix.en
    assert "deletion_threshold" in problem.fix.ko
    assert _files(root) == before  # refused before any write: not a byte of the root changed


@pytest.mark.parametrize("label", realenv.containerd_labels())
def test_the_same_node_without_the_planted_change_is_applied(label, tmp_path):
    realenv.need_root()
    containerd = realenv.need_containerd(label)
    version = 3 if containerd.is_2x else 2
    root = _root(tmp_path, version)
    rb = _preflight(root, containerd, plant=False, version=version)
    assert rb.refusals() == []
    assert rb.ok(), [(r.id, [p.code for p in r.problems]) for r in rb.failed_steps()]


def containerd_version_words(containerd) -> str:
    import subprocess
    return subprocess.run([containerd, "--version"], capture_output=True, text=True).stdout


@pytest.mark.parametrize("name", ["v1-path-in-v2-file", "unquoted-dotted-header", "misplaced-runtimes-without-containerd"])
def test_moving_a_misplaced_nvidia_table_is_what_the_run_means_to_do(containerd2, name, tmp_path):
    """containerd 2.x dumps a misplaced nvidia table (`plugins.cri...`) as it is, and the run moves it to where the
    CRI reads it: that is the runtime the run adds, not a change beside it (invariant._drop_misplaced)."""
    realenv.need_root()
    from paths import BROKEN
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG.lstrip("/")).write_bytes((BROKEN / f"{name}.toml").read_bytes())
    rb = _preflight(root, containerd2, plant=False, version=2)
    assert rb.refusals() == []
    assert rb.ok(), [(r.id, [p.code for p in r.problems]) for r in rb.failed_steps()]


# containerd's own words for a planned `oom_score = "high"` (well-formed TOML; only containerd's decoder minds the type)
OOM_SCORE_WORDS = {"1.6": "Can't convert high(string) to int",
                   "2.x": "at row 2 column 13: toml: cannot decode TOML string into struct field config.Config.OOMScore of type int"}


@pytest.mark.parametrize("label", realenv.containerd_labels())
def test_a_planned_file_containerd_would_refuse_is_refused_before_any_write(label, tmp_path):
    containerd, found, before, root = _planted_refusals(label, tmp_path, 'version = {version}\noom_score = "high"\n')
    assert [(sid, p.code) for sid, p in found] == [("containerd", "containerd.plan.rejects")]
    assert OOM_SCORE_WORDS["2.x" if containerd.is_2x else "1.6"] in found[0][1].values["said"]
    assert _files(root) == before
