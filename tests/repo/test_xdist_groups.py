"""`make test`'s workers share the tests by tests/xdist_groups.py's groups, through the real pytest-xdist: a
scratch suite with tests/conftest.py and its helpers, three files of 12 tests, two of which start a kernel over
TCP (by the words xdist_groups looks for), run with `-n 2 --dist loadgroup`. Each file's tests run on one
worker, and the two TCP files on the same one. Under xdist's own loadgroup on pytest 9.2 (the marks' "@group"
dropped) each file was split between the two workers."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
# one of the words that put a file in the "tcp-kernels" group, written so that this file is not in it
TCP_WORD = "execute_" + "notebook"


def _workers_of(tmp_path: Path) -> dict[str, set[str]]:
    suite = tmp_path / "suite"
    suite.mkdir()
    for helper in ("conftest.py", "xdist_groups.py", "mutation_order.py"):
        shutil.copy(TESTS / helper, suite / helper)
    tests = "".join(f"def test_{i}():\n    pass\n\n\n" for i in range(12))
    (suite / "test_own.py").write_text(tests)
    for name in ("test_tcp_a.py", "test_tcp_b.py"):
        (suite / name).write_text(f"# starts a kernel: papermill.{TCP_WORD}(...)\n" + tests)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "MUTANT_UNDER_TEST"))}
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v",
                           "-p", "no:cacheprovider", "--rootdir", str(suite), str(suite)],
                          cwd=suite, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    workers = defaultdict(set)
    for worker, file in re.findall(r"^\[(gw\d)\].* PASSED (test_\w+\.py)::", done.stdout, re.M):
        workers[file].add(worker)
    assert sorted(workers) == ["test_own.py", "test_tcp_a.py", "test_tcp_b.py"], done.stdout
    return workers


def test_each_file_runs_on_one_worker_and_the_tcp_kernel_files_on_the_same_one(tmp_path):
    workers = _workers_of(tmp_path)
    assert {file: len(w) for file, w in workers.items()} == {"test_own.py": 1, "test_tcp_a.py": 1, "test_tcp_b.py": 1}
    assert workers["test_tcp_a.py"] == workers["test_tcp_b.py"]
