"""How `make test` shares the tests among pytest-xdist's workers (`-n <cores + 1> --dist loadgroup`): each test file
is a group of its own, so a module-scoped fixture (a graded class, a notebook run that many tests read) runs
once, in one worker; the files are taken longest first. Kernels started in two workers at once are safe
(tests/kernel_ports.py): a kernel a test starts in process gets ports of its worker's own, and plain papermill as
a subprocess (which picks its kernel's ports at random, frees them, then the kernel binds them) starts its kernel
under one lock shared by the workers. So no file waits for another's, and no group holds more than one file.

The groups reach xdist as its scheduler (the `pytest_xdist_make_scheduler` hook, tests/conftest.py), not as
`xdist_group` marks: xdist 3.8 reads those marks by appending "@group" to each node id in the worker, which
pytest 9.2 no longer lets it do (pytest-dev/pytest-xdist#1386: the suffix is silently dropped), and its hook ran
before the conftest's marks were there anyway. So the groups were never applied: one file ran on two workers.
Without xdist (or with another --dist) nothing here is used."""
from __future__ import annotations

import re
from collections import Counter
from functools import cache
from pathlib import Path

from xdist.scheduler import LoadScopeScheduling

# what starts a kernel in a test file (a notebook run): papermill in process, its command or the runner with
# papermill's own engine, a bare kernel; such a file's tests are the long ones
_STARTS_KERNEL = re.compile(r'run_notebook\(|execute_notebook|"-m", "papermill"|/ "papermill"|\bPAPERMILL\b|'
                            r'papermill_as_node|started_kernel|\bpapermill\(|papermill_execute\(|kernel_manager\(|'
                            r'notebook_client\(|\bStudent\(|"--engine", "nbclient"')


@cache
def starts_kernels(path: str) -> bool:
    return bool(_STARTS_KERNEL.search(Path(path).read_text(encoding="utf-8")))


def longest_first(items: list) -> None:
    """The files in the order the workers take them, the longest first so that none is left to run alone at the
    end: the files with a test marked `slow` (the Ansible fleet, every fixture through papermill), then the files
    that start kernels, those with the most tests (each a notebook run or more) first, then the rest. A file's
    tests keep their order and stay together (a module fixture is set up once)."""
    slow = {str(item.path) for item in items if item.get_closest_marker("slow")}
    tests = Counter(str(item.path) for item in items)

    def rank(item) -> tuple[int, int]:
        path = str(item.path)
        return (0 if path in slow else 1, -tests[path] if starts_kernels(path) else 0)

    items.sort(key=rank)


class FileGroups(LoadScopeScheduling):
    """xdist's scope scheduling (a scope's tests go to one worker, in order), the scope being the test file.
    `_split_scope` is the method xdist's own LoadFileScheduling and LoadGroupScheduling define for this.
    The groups are taken in the order collected (`longest_first`), not xdist's default of the most tests first,
    which left the fleet's 4 tests (4 minutes of Ansible) to the very end."""

    def __init__(self, config, log=None) -> None:
        super().__init__(config, log)
        config.option.loadscopereorder = False  # as --no-loadscope-reorder

    def _split_scope(self, nodeid: str) -> str:
        return nodeid.split("::", 1)[0]  # the test file
