"""How `make test` shares the tests among pytest-xdist's workers (`-n auto --dist loadgroup`): each test file
is a group of its own, so a module-scoped fixture (a graded class, a notebook run that many tests read) runs
once, in one worker; and every file that starts a kernel over TCP (plain papermill, the user's own command, or
jupyter_client directly) is in one group, "tcp-kernels", whose tests run one after the other. jupyter_client
picks such a kernel's five ports at random and frees them before the kernel binds them, so two started at the
same moment in two workers can pick the same port ("Kernel died before replying to kernel_info", seen in CI).
The runbook's own runner and `runbook run` use private Unix sockets (papermill's `runbook` engine,
runbook_lib/evidence/engine.py) and need no such care. Without xdist the groups are ignored."""
from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

TCP_KERNELS = "tcp-kernels"
# what starts a kernel over TCP in a test file: papermill (in process, or its command, or the runner with papermill's
# own engine), or a bare KernelManager
_STARTS_TCP_KERNEL = re.compile(r'run_notebook\(|execute_notebook|"-m", "papermill"|/ "papermill"|\bPAPERMILL\b|'
                                r'papermill_as_node|started_kernel|\bpapermill\(|KernelManager\(|"--engine", "nbclient"')


@cache
def group_of(path: str) -> str:
    text = Path(path).read_text(encoding="utf-8")
    return TCP_KERNELS if _STARTS_TCP_KERNEL.search(text) else path


def add_groups(items) -> None:
    for item in items:
        item.add_marker(pytest.mark.xdist_group(group_of(str(item.path))))
