"""Issue 41: with `smoke sandbox`, containerd's refusal of the pod for the string boolean was counted again at the
pod step, after step 3 had failed for it. A refusal that only says an earlier step's mistake again is that step's:
the pod step is blocked by it, containerd's words kept. Here the refusal is judged against a real check run's
earlier verdicts; tests/real/test_real_pod_step.py has a real containerd refuse the pod."""

from __future__ import annotations

from grading_helpers import CONFIG, TOOLKIT, lab_root
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run
from runbook_lib.findings.problem import Problem
from runbook_lib.steps import pod

STRING = Problem.of("pod.rejected.string_boolean", key="SystemdCgroup", said="Can't convert true(string) to bool")
NO_RUNTIME = Problem.of("pod.rejected.no_runtime", handler="nvidia-gpu", runtimes="nvidia, runc", runtime="nvidia",
                        said='no runtime for "nvidia-gpu" is configured')


def checked(root):
    rb = Run(validate(root=str(root), mode="check")).start()
    try:
        rb.run_all()
    finally:
        rb.finish()
    return rb


def test_a_refusal_that_repeats_an_earlier_failure_names_that_step(tmp_path):
    root = lab_root(tmp_path)
    (root / CONFIG).write_text((root / CONFIG).read_text().replace("SystemdCgroup = true", 'SystemdCgroup = "true"'))
    rb = checked(root)
    blocked = pod._earlier(rb, STRING)
    assert (blocked.code, blocked.values["step"]) == ("depends.earlier", 3)
    assert "Can't convert true(string) to bool" in blocked.what.en and "Can't convert true(string) to bool" in blocked.what.ko
    assert pod._earlier(rb, NO_RUNTIME) is NO_RUNTIME  # not what step 3 failed for: the pod's own


def test_a_refusal_without_an_earlier_failure_is_the_pods_own(tmp_path):
    assert pod._earlier(checked(lab_root(tmp_path / "right")), STRING) is STRING
    root = lab_root(tmp_path / "handler")
    rc = root / TOOLKIT / "runtimeclass.yaml"
    rc.write_text(rc.read_text().replace("handler: nvidia", "handler: nvidia-gpu"))
    assert pod._earlier(checked(root), NO_RUNTIME).values["step"] == 7
