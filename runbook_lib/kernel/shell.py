"""The kernel's shell: ipykernel's own, without five costs every runbook cell paid for nothing.

Measured in the kernel (cProfile of one plain papermill run of notebooks/run.ipynb against its `pass` floor,
docs/BENCHMARKS.md run H), each is a per-cell or per-display cost the `pass` floor does not pay:

- **A round trip to the output thread per stream, at every display.** ipykernel flushes stdout and stderr
  before it publishes a display, so that text a cell printed comes before the display that follows it; each
  flush schedules the send on the output thread and waits for it (~0.3 ms), even with nothing written. The
  runbook's cells display ~45 times a run and print nothing. A stream with nothing waiting is not flushed;
  one with text waiting (`_flush_pending`, set by its `write` until the output thread sends it) is flushed as
  before. Both messages go out through the same output thread, in the order they were handed to it.
- **A pure-Python hash of every cell's source** (ipykernel's `XCachingCompiler`, murmur2, so that its debugger
  finds the cell's file). The kernel has no debugger (app.py); IPython's own compiler names the cell with a
  C hash. Tracebacks still say `Cell In[N], line L`.
- **Tokenizing every cell to look for IPython syntax** (magics, `!shell`, `obj?`, `/autocall`). IPython's
  token transforms only act on a token that starts with one of `! ? % , ; /` where a statement starts, or on
  `!`, `%` after an `=`, or on `?` at a line's end. A cell without `!`, `?` or `%` anywhere, and without a line
  starting with `,`, `;` or `/`, has none of these, so its tokenizing is skipped; every other cell is
  transformed exactly as before. Any transformer added to IPython's own four turns this off.
- **A compile of the whole cell only to learn whether it awaits.** Before running a cell, IPython compiles it
  once to see whether it is a coroutine (top-level `await`, `async for`, `async with`, an async
  comprehension), then parses it and compiles it again. Each of those needs the word `await` or `async`; a
  cell without either is not a coroutine, and that compile is skipped.
- **A compile per statement.** IPython compiles and runs a cell one top-level statement at a time, so that
  only the last one, when it is an expression, shows its value. The statements before the last are compiled
  together, once, and run as one: they still run in order, stop at the first exception with the same
  traceback (every statement keeps its line), and show nothing; the last is run as IPython runs it. A cell
  whose first statements do not compile together (or await) is run statement by statement, as before, so
  what ran before a broken statement still runs.

tests/kernel/test_shell.py checks each against ipykernel's and IPython's own behaviour, and that the internals
used here still exist in the pinned versions.
"""

from __future__ import annotations

import ast
import inspect
import sys

from IPython.core.compilerop import CachingCompiler
from IPython.core.inputtransformer2 import (EscapedCommand, HelpEnd, MagicAssign, SystemAssign,
                                            TransformerManager)
from ipykernel.zmqshell import ZMQDisplayPublisher, ZMQInteractiveShell
from traitlets import Type

IPYTHON_TOKEN_TRANSFORMERS = (MagicAssign, SystemAssign, EscapedCommand, HelpEnd)
ANYWHERE = ("!", "?", "%")  # a shell escape, help, a magic: wherever a token transform can start
LINE_START = (",", ";", "/")  # the autocall escapes, only where a statement starts


def may_hold_ipython_syntax(lines: list[str]) -> bool:
    """False only when no token transform of IPython's can apply: none of its characters where one starts."""
    for line in lines:
        if any(ch in line for ch in ANYWHERE) or line.lstrip().startswith(LINE_START):
            return True
    return False


class RunbookTransformerManager(TransformerManager):
    def do_token_transforms(self, lines):
        if tuple(self.token_transformers) == IPYTHON_TOKEN_TRANSFORMERS and not may_hold_ipython_syntax(lines):
            return lines
        return super().do_token_transforms(lines)


def has_waiting_text(stream) -> bool:
    """True unless the stream is ipykernel's OutStream with nothing written since its last send. Any other
    stream (a cell's own redirect, a replaced sys.stdout) is flushed as ipykernel flushes it."""
    pending = getattr(stream, "_flush_pending", None)
    if not isinstance(pending, bool):
        return True
    return pending or bool(getattr(stream, "_subprocess_flush_pending", True))


class RunbookDisplayPublisher(ZMQDisplayPublisher):
    def _flush_streams(self):
        for stream in (sys.stdout, sys.stderr):
            if has_waiting_text(stream):
                stream.flush()


def may_await(source: str) -> bool:
    """False only when the cell cannot be a coroutine: each way to be one is spelt with `await` or `async`."""
    return "await" in source or "async" in source


class RunbookShell(ZMQInteractiveShell):
    display_pub_class = Type(RunbookDisplayPublisher)

    def init_instance_attrs(self):
        super().init_instance_attrs()
        self.input_transformer_manager = RunbookTransformerManager()

    def should_run_async(self, raw_cell, *, transformed_cell=None, preprocessing_exc_tuple=None):
        if transformed_cell is not None and preprocessing_exc_tuple is None and not may_await(transformed_cell):
            return False
        return super().should_run_async(raw_cell, transformed_cell=transformed_cell,
                                        preprocessing_exc_tuple=preprocessing_exc_tuple)

    async def run_ast_nodes(self, nodelist, cell_name, interactivity="last_expr", compiler=compile, result=None):
        if interactivity != "last_expr" or len(nodelist) < 3:  # a cell of one or two statements: nothing to save
            return await super().run_ast_nodes(nodelist, cell_name, interactivity, compiler, result)
        head, last = nodelist[:-1], nodelist[-1:]
        code = None
        try:
            with compiler.extra_flags(getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0x0) if self.autoawait else 0x0):
                code = compiler(ast.Module(head, []), cell_name, "exec")
        except Exception:  # noqa: BLE001 - IPython's own loop reports it (outside this handler: no chained
            pass  # exception in the traceback), after running what comes before the broken statement
        if code is None or code.co_flags & inspect.CO_COROUTINE:
            return await super().run_ast_nodes(nodelist, cell_name, interactivity, compiler, result)
        if await self.run_code(code, result):
            return True
        return await super().run_ast_nodes(last, cell_name, interactivity, compiler, result)


COMPILER = CachingCompiler
