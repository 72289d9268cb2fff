"""Issue 54: one reading of a runtime definition for every TOML spelling of one table (a header, dotted keys, an
inline table, mixed, at any depth): containerd reads them alike, so the stray and misplaced rules see each, name
it by its own line, and apply never writes a second definition beside it. Every spelling in process (the engine
the notebook runs, every step of a check run as the notebook runs them); the issue's own case also through plain
papermill on a lab root."""

from __future__ import annotations

import pytest

from grading_helpers import papermill, step_records
from reliability_helpers import run_apply
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run

CONFIG = "etc/containerd/config.toml"
V2_CRI = 'plugins."io.containerd.grpc.v1.cri"'
V3_TAIL = '\n[plugins."io.containerd.cri.v1.runtime".containerd]\n  default_runtime_name = "runc"\n'
OPTIONS = {"runtime_type": '"io.containerd.runc.v2"', "options.BinaryName": '"/usr/bin/nvidia-container-runtime"',
           "options.SystemdCgroup": "true"}

SPELLINGS = {
    # dotted keys under the version-2 plugin's header, the issue's case
    "dotted": (f"[{V2_CRI}]\n" + "".join(f"  containerd.runtimes.nvidia.{k} = {v}\n" for k, v in OPTIONS.items()), 4),
    # dotted keys one table deeper
    "dotted-deeper": (f"[{V2_CRI}.containerd]\n" + "".join(f"  runtimes.nvidia.{k} = {v}\n" for k, v in OPTIONS.items()), 4),
    # an inline table under the runtimes table
    "inline": (f"[{V2_CRI}.containerd.runtimes]\n  nvidia = {{ runtime_type = \"io.containerd.runc.v2\", "
               "options = { BinaryName = \"/usr/bin/nvidia-container-runtime\", SystemdCgroup = true } }\n", 4),
    # mixed: the runtime by dotted keys, its options by a header
    "mixed": (f"[{V2_CRI}.containerd]\n  runtimes.nvidia.runtime_type = \"io.containerd.runc.v2\"\n"
              f"[{V2_CRI}.containerd.runtimes.nvidia.options]\n  BinaryName = \"/usr/bin/nvidia-container-runtime\"\n"
              "  SystemdCgroup = true\n", 4),
    # only a header below the runtime's own: the runtime's table is made by it
    "options-header-only": (f"[{V2_CRI}.containerd.runtimes.nvidia.options]\n"
                            "  BinaryName = \"/usr/bin/nvidia-container-runtime\"\n", 3),
}


def _root(tmp_path, body: str):
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_text("version = 3\n\n" + body + V3_TAIL)
    return root


def _check_run(root) -> list:
    """Every step of a check run, as the notebook runs them (a failed step does not stop the next)."""
    rb = Run(validate(root=str(root), mode="check"))
    rb.start()
    try:
        rb.preflight()
        return [rb.run(step) for step in rb.steps if isinstance(step.NUMBER, int)]
    finally:
        rb.finish()


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_a_misplaced_runtime_is_named_by_its_line_in_every_spelling(tmp_path, spelling):
    body, line = SPELLINGS[spelling]
    root = _root(tmp_path, body)
    text = (root / CONFIG).read_text()
    step2 = next(r for r in _check_run(root) if r.step == 2)
    found = [p for p in step2.problems if p.code == "runtime.misplaced.v2_path"]
    assert step2.failed and found, step2.problems
    assert found[0].line == line, found[0]
    # apply refuses before any write: never a second definition of the runtime beside the first
    assert any(r.failed for r in run_apply(root))
    assert (root / CONFIG).read_text() == text


def test_a_misplaced_runtime_in_dotted_keys_through_plain_papermill(tmp_path):
    """The issue's case through the user's own command: check names the line, apply writes nothing."""
    body, line = SPELLINGS["dotted"]
    root = _root(tmp_path, body)
    text = (root / CONFIG).read_text()
    proc = papermill(root, tmp_path / "check.ipynb", "-p", "mode", "check")
    assert proc.returncode != 0
    problems = step_records(tmp_path / "check.ipynb")[2]["problems"]
    found = [p for p in problems if p["code"] == "runtime.misplaced.v2_path"]
    assert found, problems
    assert found[0]["line"] == line, found[0]
    proc = papermill(root, tmp_path / "apply.ipynb")
    assert proc.returncode != 0
    assert (root / CONFIG).read_text() == text


def test_the_definitions_of_a_runtime_in_each_spelling():
    """The reading itself, fast: every spelling gives the runtime's table path and its first line."""
    from runbook_lib.containerd.diagnose import runtime_definitions

    right = ("plugins", "io.containerd.cri.v1.runtime", "containerd", "runtimes", "nvidia")
    wrong = ("plugins", "io.containerd.grpc.v1.cri", "containerd", "runtimes", "nvidia")
    for spelling, (body, line) in SPELLINGS.items():
        text = "version = 3\n\n" + body
        assert runtime_definitions(text, "nvidia") == [(wrong, line - 1)], spelling
        assert runtime_definitions(text, "nvidia-cdi") == [], spelling
    text = '[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia]\n  runtime_type = "x"\n'
    assert runtime_definitions(text, "nvidia") == [(right, 0)]
