"""The kernel's shell (runbook_lib/kernel/shell.py): what it skips changes nothing a cell or a reader can see.

- the token transforms: for any cell, the shell's transform is IPython's own, character for character;
- the flushes: text a cell prints still comes before the display that follows it, and after it, in a real
  kernel; a stream with nothing written is not flushed, any other stream is;
- the compiler: a cell's traceback still names the cell;
- the compiles: a cell runs, shows, raises and awaits as in ipykernel's own kernel, statement for statement;
- the internals it leans on still exist in the installed ipykernel and IPython.
"""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings, strategies as st
from IPython.core.inputtransformer2 import TokenTransformBase, TransformerManager

from helpers import REPO, started_kernel
from runbook_lib.kernel import app as kernel
from runbook_lib.kernel import shell

IPYTHON_SYNTAX = [
    "%time x = 1\n", "%%bash\necho hi\n", "!ls -l\n", "!!ls\n", "x = !ls\n", "a = %pwd\n", "len?\n", "??len\n",
    "len??\n", "/print 1 2\n", ",print a b\n", ";print a b\n", "if True:\n    %time 1\n", "f(1,\n  2)?\n",
    "x = [1,\n     %time 2]\n", "y = 'a?' \n", "z = 3 % 2\n", "a != b\n", "# why? 100%!\n",
    ">>> x = 1\n... y = 2\n", "In [1]: x = 1\n", "\n\n  x = 1\n  y = 2\n", "def f():\n    return 1\n",
]


def notebook_cells() -> list[str]:
    out = []
    for name in ("run.ipynb", "lab.ipynb", "class.ipynb"):
        nb = json.loads((REPO / "notebooks" / name).read_text(encoding="utf-8"))
        out += ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    return out


def _both(cell: str):
    def one(manager):
        try:
            return ("ok", manager.transform_cell(cell))
        except Exception as exc:  # noqa: BLE001 - the same error, or the same text, is what is compared
            return ("raised", type(exc).__name__)
    return one(shell.RunbookTransformerManager()), one(TransformerManager())


@pytest.mark.parametrize("cell", IPYTHON_SYNTAX + notebook_cells())
def test_every_cell_is_transformed_as_ipython_transforms_it(cell):
    ours, ipythons = _both(cell)
    assert ours == ipythons


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab =(),:;/!?%#'\"\n \t1.[]")), max_size=40))
def test_any_text_is_transformed_as_ipython_transforms_it(cell):
    ours, ipythons = _both(cell)
    assert ours == ipythons


def test_the_runbooks_cells_take_the_short_way():
    """What the shell saves is only saved if the runbook's own cells hold none of IPython's syntax characters
    (a `%` or `?` in a comment is enough to tokenize that cell again: correct, only slower)."""
    nb = json.loads((REPO / "notebooks" / "run.ipynb").read_text(encoding="utf-8"))
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    slow = [c.splitlines()[0] for c in cells if shell.may_hold_ipython_syntax(c.splitlines(keepends=True))]
    assert slow == []


def test_a_transformer_added_to_ipythons_four_turns_the_short_way_off():
    class Upper(TokenTransformBase):
        @classmethod
        def find(cls, tokens_by_line):
            for line in tokens_by_line:
                for token in line:
                    if token.string == "x":
                        return cls(token.start)
            return None

        def transform(self, lines):
            return [line.replace("x", "y") for line in lines]

    manager = shell.RunbookTransformerManager()
    manager.token_transformers.append(Upper)
    assert manager.transform_cell("x = 1\n") == "y = 1\n"


class _Stream(io.StringIO):
    def __init__(self, pending):
        super().__init__()
        self.flushes = 0
        if pending is not None:
            self._flush_pending, self._subprocess_flush_pending = pending, False

    def flush(self):
        self.flushes += 1


@pytest.mark.parametrize("pending, flushed", [(False, 0), (True, 1), (None, 1)])
def test_a_display_flushes_a_stream_only_when_text_waits_in_it(monkeypatch, pending, flushed):
    out, err = _Stream(pending), _Stream(pending)
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr("sys.stderr", err)
    shell.RunbookDisplayPublisher._flush_streams(object.__new__(shell.RunbookDisplayPublisher))
    assert (out.flushes, err.flushes) == (flushed, flushed)


@pytest.fixture(scope="module")
def kc():
    with started_kernel(kernel.NAME) as (_, client):
        yield client


def _messages(client, code: str) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []

    def hook(msg):
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            seen.append((content["name"], content["text"]))
        elif kind in ("display_data", "update_display_data", "execute_result"):
            seen.append((kind, content["data"]["text/plain"]))
        elif kind == "error":
            seen.append(("error", "\n".join(content["traceback"])))

    client.execute_interactive(code, timeout=60, output_hook=hook)
    return seen


def test_printed_text_keeps_its_place_around_the_displays_in_a_real_kernel(kc):
    code = ("import sys\nprint('one')\ndisplay('two')\nsys.stderr.write('three\\n')\ndisplay('four')\n"
            "print('five')\n")
    assert _messages(kc, code) == [("stdout", "one\n"), ("display_data", "'two'"), ("stderr", "three\n"),
                                   ("display_data", "'four'"), ("stdout", "five\n")]


def test_a_cell_that_only_displays_sends_only_its_displays(kc):
    assert _messages(kc, "display('a')\ndisplay('b')\n") == [("display_data", "'a'"), ("display_data", "'b'")]


def test_a_cells_traceback_is_the_one_ipykernels_own_kernel_shows(kc):
    cell = "x = 1\nraise ValueError('here')\n"
    with started_kernel("python3") as (_, client):  # ipykernel's kernelspec, installed beside ours by `make venv`
        expected = _messages(client, cell)
    assert [(k, _plain(t)) for k, t in _messages(kc, cell)] == [(k, _plain(t)) for k, t in expected]
    assert "Cell In[" in _plain(expected[0][1])


def _plain(text: str) -> str:
    """The traceback without its colours and without the cell's number (each kernel counts its own cells)."""
    import re
    return re.sub(r"Cell In\[\d+\]", "Cell In[N]", re.sub(r"\x1b\[[0-9;]*m", "", text))


# What the merged compile and the skipped async compile must not change: the values shown, what ran before an
# exception or a statement that parses but does not compile, top-level await (in the head or the last line),
# a name bound in the head and read in the last statement, a statement that only shows when it is the last.
CELLS_TO_COMPARE = [
    "a = 1\nb = a + 1\nb * 10\n",
    "seen = []\nseen.append(1)\n1 / 0\nseen.append(2)\n",
    "seen\n",
    "y = 1\nreturn 5\nz = 2\n",
    "y, 'z' in dir()\n",
    "import asyncio\nv = 1\nawait asyncio.sleep(0)\nv + 1\n",
    "import asyncio\nw = 2\nx = 3\nawait asyncio.sleep(0, result=w * x)\n",
    "r = [i async for i in __import__('asyncio').Queue().__aiter__()] if False else 7\ns = 1\nr + s\n",
    "q = 5\nq\nq + 1\n",
    "for i in range(2):\n    i\nt = 1\nt\n",
    "def f():\n    return 'await'\nu = f()\nu\n",
    "import sys\nprint('p')\nsys.stdout.flush()\ndisplay('d')\n40 + 2\n",
]


@pytest.mark.parametrize("cell", CELLS_TO_COMPARE)
def test_a_cell_runs_as_in_ipykernels_own_kernel(kc, stock_kc, cell):
    assert [(k, _plain(t)) for k, t in _messages(kc, cell)] == [(k, _plain(t)) for k, t in _messages(stock_kc, cell)]


def test_the_runbooks_cells_are_compiled_once():
    """Every cell of the runbook's notebooks skips the compile that only looks for `await`."""
    assert [c.splitlines()[0] for c in notebook_cells() if shell.may_await(c)] == []


@pytest.fixture(scope="module")
def stock_kc():
    with started_kernel("python3") as (_, client):  # ipykernel's kernelspec, installed beside ours by `make venv`
        yield client


def test_the_kernel_runs_the_shell_and_compiler_of_shell_py(kc):
    code = "ip = get_ipython()\nprint(type(ip).__name__, type(ip.compile).__name__, type(ip.display_pub).__name__, " \
           "type(ip.input_transformer_manager).__name__)\n"
    assert _messages(kc, code) == [("stdout", "RunbookShell CachingCompiler RunbookDisplayPublisher "
                                              "RunbookTransformerManager\n")]


def test_the_internals_the_shell_leans_on_still_exist():
    from ipykernel.iostream import OutStream
    from ipykernel.ipkernel import IPythonKernel
    from ipykernel.zmqshell import ZMQDisplayPublisher, ZMQInteractiveShell
    from IPython.core.interactiveshell import InteractiveShell

    assert callable(ZMQDisplayPublisher._flush_streams)
    assert ZMQInteractiveShell.class_traits()["display_pub_class"].default_value is ZMQDisplayPublisher
    assert {"shell_class", "compiler_class"} <= set(IPythonKernel.class_traits())
    assert "self._flush_pending = True" in _source(OutStream._schedule_flush)
    assert "self._flush_pending = False" in _source(OutStream._flush)
    assert "_should_be_async(transformed_cell)" in _source(InteractiveShell.should_run_async)
    assert "async def run_ast_nodes(" in _source(InteractiveShell.run_ast_nodes)
    assert tuple(TransformerManager().token_transformers) == shell.IPYTHON_TOKEN_TRANSFORMERS


def _source(fn) -> str:
    import inspect
    return inspect.getsource(fn)


def test_every_kernel_message_is_packed_by_orjson_on_both_sides(kc):
    """pyproject declares orjson for jupyter_client, which then packs and unpacks every message with it (its own
    default when it is installed): in the kernel, and in the client papermill, nbclient and the grader use."""
    from jupyter_client.session import Session

    assert Session().packer == "orjson" and kc.session.packer == "orjson"
    assert _messages(kc, "print(get_ipython().kernel.session.packer)\n") == [("stdout", "orjson\n")]
