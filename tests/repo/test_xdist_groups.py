"""`make test`'s workers share the tests by tests/xdist_groups.py's groups, through the real pytest-xdist: a
scratch suite with tests/conftest.py and its helpers, four files: one of 12 tests, two that start kernels (by the
words xdist_groups looks for) with 5 and 2 tests, and one with a test marked slow, run with `--dist loadgroup`.
Each file's tests run on one worker (under xdist's own loadgroup on pytest 9.2, the marks' "@group" dropped, each
file was split between the two workers), and the files are taken longest first: the slow one, then the kernel
files by their number of tests, then the rest. No file waits for another: kernel starts are safe side by side
(tests/kernel_ports.py), so the two kernel files are not held to one worker."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
# one of the words that tell xdist_groups a file starts kernels, written so that this file does not say it
KERNEL_WORD = "execute_" + "notebook"


def _run(tmp_path: Path, workers: int) -> list[tuple[str, str]]:
    """(worker, file) of each test passed, in the order the run printed them."""
    suite = tmp_path / "suite"
    suite.mkdir()
    for helper in ("conftest.py", "xdist_groups.py", "mutation_order.py", "kernel_ports.py"):
        shutil.copy(TESTS / helper, suite / helper)

    def tests(n: int) -> str:
        return "".join(f"def test_{i}():\n    pass\n\n\n" for i in range(n))

    (suite / "test_own.py").write_text(tests(12))
    (suite / "test_kernels_few.py").write_text(f"# starts a kernel: papermill.{KERNEL_WORD}(...)\n" + tests(2))
    (suite / "test_kernels_many.py").write_text(f"# starts a kernel: papermill.{KERNEL_WORD}(...)\n" + tests(5))
    (suite / "test_long.py").write_text("import pytest\n\n\n@pytest.mark.slow\n" + tests(1))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "MUTANT_UNDER_TEST"))}
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", str(workers), "--dist", "loadgroup", "-v",
                           "-p", "no:cacheprovider", "-W", "ignore::pytest.PytestUnknownMarkWarning",
                           "--rootdir", str(suite), str(suite)],
                          cwd=suite, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return re.findall(r"^\[(gw\d)\].* PASSED (test_\w+\.py)::", done.stdout, re.M)


def test_each_file_runs_on_one_worker(tmp_path):
    workers = defaultdict(set)
    for worker, file in _run(tmp_path, 2):
        workers[file].add(worker)
    assert {file: len(w) for file, w in workers.items()} == {"test_own.py": 1, "test_kernels_few.py": 1,
                                                             "test_kernels_many.py": 1, "test_long.py": 1}


def test_the_files_are_taken_longest_first_each_whole(tmp_path):
    files = [file for _, file in _run(tmp_path, 1)]
    assert files == ["test_long.py"] + ["test_kernels_many.py"] * 5 + ["test_kernels_few.py"] * 2 + ["test_own.py"] * 12
