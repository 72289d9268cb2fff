"""Every place in tests/ that starts a kernel goes through tests/kernel_ports.py (issue 53), so that `make test`'s
workers may start kernels at the same moment: a kernel started in the test's process (papermill's
`execute_notebook`, nbclient's `NotebookClient`, jupyter_client's `KernelManager`) only through its
`papermill_execute`, `notebook_client`, `kernel_manager` (ports of the worker's own); plain papermill as a
subprocess only in a function that runs it through `run_papermill` or under `papermill_lock`. A new test that
starts one otherwise would bring back two kernels on one port ("Kernel died before replying to kernel_info")."""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
HELPER = TESTS / "kernel_ports.py"

# a kernel started in this process, by the libraries' own names
IN_PROCESS = re.compile(r"\b(execute_notebook|KernelManager|AsyncKernelManager|MultiKernelManager|NotebookClient|"
                        r"PapermillNotebookClient|start_new_kernel|start_new_async_kernel|run_kernel)\(")
# plain papermill's command (or the runner with papermill's own TCP engine), however its program is named
COMMAND = re.compile(r'"-m", "papermill"|/ "papermill"|\bPAPERMILL\b|\[\s*"papermill"\s*,|which\("papermill"\)|'
                     r'"--engine", "nbclient"')
THROUGH_LOCK = re.compile(r"\b(run_papermill|papermill_lock)\b")


def places(source: str, name: str = "<source>") -> list[str]:
    """Where ``source`` starts a kernel around tests/kernel_ports.py: "name:line: what"."""
    found = [f"{name}:{source.count(chr(10), 0, m.start()) + 1}: {m.group(0)} (use kernel_ports)"
             for m in IN_PROCESS.finditer(source)]
    tree = ast.parse(source)
    scopes = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    # a module's own statements, but a constant's definition (PAPERMILL = ...): naming the program runs nothing
    scopes += [node for node in tree.body if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                   ast.ClassDef, ast.Import, ast.ImportFrom))
               and not (isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets))]
    for node in scopes:
        text = ast.get_source_segment(source, node) or ""
        if COMMAND.search(text) and not THROUGH_LOCK.search(text):
            found.append(f"{name}:{node.lineno}: runs plain papermill without run_papermill or papermill_lock")
    return found


def test_every_kernel_start_in_tests_goes_through_kernel_ports():
    here = Path(__file__).resolve()
    found = [place for path in sorted(TESTS.rglob("*.py")) if path not in (HELPER, here)
             for place in places(path.read_text(encoding="utf-8"), str(path.relative_to(TESTS)))]
    assert found == []


def test_the_check_finds_each_way_around_the_helpers():
    """The check itself: each way of starting a kernel around kernel_ports is found, the helpers' ways are not."""
    around = {
        "papermill in process": "import papermill\npapermill.execute_notebook('a.ipynb', 'b.ipynb')\n",
        "a bare manager": "from jupyter_client.manager import KernelManager\nkm = KernelManager(kernel_name='x')\n",
        "nbclient": "from nbclient import NotebookClient\nNotebookClient(nb).execute()\n",
        "the command": 'def run(out):\n    return subprocess.run([sys.executable, "-m", "papermill", "a", out])\n',
        "its program": 'def run(bin):\n    argv = [str(bin / "papermill"), "a.ipynb"]\n    return go(argv)\n',
        "the runner's TCP engine": 'def run():\n    go(["-m", "runbook_lib.runner", "--engine", "nbclient"])\n',
    }
    assert {case: len(places(source)) for case, source in around.items()} == dict.fromkeys(around, 1)
    through = '''
from kernel_ports import kernel_manager, papermill_execute, papermill_lock, run_papermill

PAPERMILL = [sys.executable, "-m", "papermill"]


def run(out):
    return run_papermill([sys.executable, "-m", "papermill", "a.ipynb", out])


def node(argv):
    argv = ["-m", "papermill"]
    with papermill_lock():
        return go(argv)


km = kernel_manager("python3")
papermill_execute("a.ipynb", "b.ipynb")
'''
    assert places(through) == []
    assert places(HELPER.read_text(encoding="utf-8")) != []  # the helper itself, the one place they are called
