"""How a class's grading starts: two kernels ahead for every worker, and the zygote started before the grader's own
imports (runbook_lib/grading/runner.py). Both are about time; what is tested here is what they must never cost: a
student, a kernel, a process left behind."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from runbook_lib.evidence.archive import packaged_notebook
from runbook_lib.evidence.parallel import Job
from runbook_lib.grading import runner
from runbook_lib.kernel import pool as kernel_pool


def _jobs(tmp_path: Path, n: int) -> list[Job]:
    return [Job(str(tmp_path / f"s{i}"), f"s{i}", {"root": str(tmp_path / f"s{i}"), "mode": "check"},
                run_dir=tmp_path / "out" / f"s{i}", kind="grade") for i in range(n)]


@pytest.mark.parametrize(("workers", "students", "ahead"), [(1, 3, 2), (2, 3, 4), (5, 3, 6)])
def test_the_pool_starts_two_kernels_ahead_for_each_worker(tmp_path, monkeypatch, workers, students, ahead):
    asked = []

    class NoKernels(kernel_pool.KernelPool):
        def __init__(self, kernel_name, total, ahead, zygote, *args, **kwargs):
            asked.append(ahead)
            super().__init__(kernel_name, total, ahead, zygote, *args, **kwargs)

        async def take(self):  # each student ends at once with this reason: no kernel is started at all
            raise RuntimeError("no kernel in this test")

    async def no_zygote(process=None, in_process=None):
        return None

    monkeypatch.setattr(runner, "in_process", lambda kernel_name: False)  # the pool's path: another kernel's
    monkeypatch.setattr(kernel_pool, "KernelPool", NoKernels)
    monkeypatch.setattr(kernel_pool.Zygote, "start", staticmethod(no_zygote))
    graded = asyncio.run(runner.grade_all(packaged_notebook(), _jobs(tmp_path, students), "test", workers, 5))
    assert asked == [ahead]
    assert [job.label for job, _ in graded] == [f"s{i}" for i in range(students)]
    assert all(result.manifest["error"]["ename"] == "RuntimeError" for _, result in graded)


def test_the_grading_forks_its_kernels_from_the_zygote_started_early():
    early = runner.EarlyZygote()
    process = early.process
    assert process is not None and process.returncode is None

    async def adopt():
        zygote = await kernel_pool.Zygote.start(early.process)
        assert zygote.process is process
        assert zygote.pid == process.pid  # the zygote's "ready" line came from the process started early
        await zygote.stop()

    early.run(adopt())
    assert process.returncode == 0


def test_an_early_zygote_the_grading_never_reached_is_stopped():
    early = runner.EarlyZygote()
    process = early.process
    early.close()
    assert process.returncode == 0  # end of its stdin: the zygote's own way out
    early.close()  # and twice is harmless (runbook grade closes it whatever happened)


def _processes_with(mark: str) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if mark.encode() in Path(f"/proc/{pid}/environ").read_bytes():
                    found.append(int(pid))
            except OSError:
                pass
    return found


def test_runbook_grade_refused_after_the_zygote_started_leaves_no_process(tmp_path):
    root = tmp_path / "kim"
    root.mkdir()
    mark = f"RUNBOOK_TEST_MARK={uuid.uuid4().hex}"
    env = {**os.environ, mark.split("=")[0]: mark.split("=")[1]}
    # -p mode apply is refused by grade_parameters, after the zygote was started and papermill imported
    done = subprocess.run([sys.executable, "-m", "runbook_lib.cli", "grade", "--out", str(tmp_path / "out"),
                           "-p", "mode", "apply", str(root)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "check" in done.stderr
    assert _processes_with(mark) == []
