"""How `make test` shares the tests among pytest-xdist's workers (`-n auto --dist loadgroup`): each test file
is a group of its own, so a module-scoped fixture (a graded class, a notebook run that many tests read) runs
once, in one worker; and every file that starts a kernel over TCP (plain papermill, the user's own command, or
jupyter_client directly) is in one group, "tcp-kernels", whose tests run one after the other. jupyter_client
picks such a kernel's five ports at random and frees them before the kernel binds them, so two started at the
same moment in two workers can pick the same port ("Kernel died before replying to kernel_info", seen in CI).
The runbook's own runner and `runbook run` use private Unix sockets (papermill's `runbook` engine,
runbook_lib/evidence/engine.py) and need no such care.

The groups reach xdist as its scheduler (the `pytest_xdist_make_scheduler` hook, tests/conftest.py), not as
`xdist_group` marks: xdist 3.8 reads those marks by appending "@group" to each node id in the worker, which
pytest 9.2 no longer lets it do (pytest-dev/pytest-xdist#1386: the suffix is silently dropped), and its hook ran
before the conftest's marks were there anyway. So the groups were never applied: one file ran on two workers.
Without xdist (or with another --dist) nothing here is used."""
from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from xdist.scheduler import LoadScopeScheduling

TCP_KERNELS = "tcp-kernels"
# what starts a kernel over TCP in a test file: papermill (in process, or its command, or the runner with papermill's
# own engine), or a bare KernelManager
_STARTS_TCP_KERNEL = re.compile(r'run_notebook\(|execute_notebook|"-m", "papermill"|/ "papermill"|\bPAPERMILL\b|'
                                r'papermill_as_node|started_kernel|\bpapermill\(|KernelManager\(|"--engine", "nbclient"')


@cache
def group_of(path: str) -> str:
    text = Path(path).read_text(encoding="utf-8")
    return TCP_KERNELS if _STARTS_TCP_KERNEL.search(text) else path


def longest_first(items: list) -> None:
    """The groups in the order a worker takes them, the longest first so that none is left to run alone at the
    end: the TCP-kernel group, then the files with a test marked `slow` (the Ansible fleet), then the rest. A
    file's tests keep their order and stay together (a module fixture is set up once)."""
    slow = {str(item.path) for item in items if item.get_closest_marker("slow")}

    def rank(item) -> int:
        path = str(item.path)
        return 0 if group_of(path) == TCP_KERNELS else 1 if path in slow else 2

    items.sort(key=rank)


class FileGroups(LoadScopeScheduling):
    """xdist's scope scheduling (a scope's tests go to one worker, in order), the scope being the test file's
    group. `_split_scope` is the method xdist's own LoadFileScheduling and LoadGroupScheduling define for this.
    The groups are taken in the order collected (`longest_first`), not xdist's default of the most tests first,
    which left the fleet's 4 tests (4 minutes of Ansible) to the very end."""

    def __init__(self, config, log=None) -> None:
        super().__init__(config, log)
        config.option.loadscopereorder = False  # as --no-loadscope-reorder

    def _split_scope(self, nodeid: str) -> str:
        return group_of(str(self.config.rootpath / nodeid.split("::", 1)[0]))
