"""A notebook executed cell by cell in this process, by the kernel's own shell, without a kernel's sockets.

The grader's students (runbook_lib/grading/student.py) run here: each in a process forked from the zygote
(zygote.py, `--in-process`), which imported everything and built this shell once, before any cell ran. The child
runs one student's cells and ends, so nothing of one student reaches the next (tests/kernel/test_inprocess.py).

What a cell sees and what the notebook records are the kernel's: the shell is the kernel's (RunbookShell, on
ipykernel's ZMQInteractiveShell, with the kernel's exec_lines, history in memory and the cell-order hint of
runbook_lib.notebook.kernel_names), its displays, results and errors are the messages ipykernel would have sent
(built by ipykernel's own display publisher, display hook and traceback sender, packed and unpacked by
jupyter_client's Session as they would be on the wire), and nbclient's own `process_message` turns them into the
cell's outputs, execution count and timing records. What is left out is only the transport: no socket, no output
thread, no heartbeat, no 0.2 s of silence before the first cell, no round trip per cell.

Streams: a cell's stdout and stderr are kept and sent as one `stream` message each when ipykernel would send them
at the latest (before a display, before a traceback, at the end of the cell); ipykernel may also send part of a
long-running cell's text earlier, on its 0.2 s flush interval, which nbclient records as separate outputs. Text
written straight to file descriptor 1 or 2 (a child process's output) is caught as ipykernel catches it, outside
pytest: read at each flush, so it lands before the display or value that follows it, stdout then stderr. ipykernel
forwards it from a thread that reads a pipe, so in a kernel it lands wherever that thread was at the flush: the
same outputs, in an order the kernel does not define (tests/kernel/test_inprocess.py).
"""

from __future__ import annotations

import codecs
import io
import os
import sys
from datetime import datetime, timezone

from runbook_lib.kernel import early as kernel_early

# what `python -m runbook_lib.kernel` gets from its kernelspec and the extra arguments (early.py)
EXEC_LINES = [KERNEL_ARG.split("=", 1)[1] for KERNEL_ARG in kernel_early.KERNEL_EXTRA_ARGUMENTS
              if KERNEL_ARG.startswith("--IPKernelApp.exec_lines=")]


class Capture:
    """jupyter_client's Session for the shell's display publisher and display hook: a message is packed and
    unpacked as on the wire, then handed to ``sink`` (the cell's nbclient) instead of a socket."""

    def __init__(self):
        from jupyter_client.session import Session

        self.session = Session(key=b"", username="runbook")
        self.session.send = self.send  # the only method the shell's publishers call on it
        self.sink = None
        self.parent: dict = {}

    def message(self, msg_type: str, content: dict, parent: dict | None = None, metadata: dict | None = None) -> dict:
        s = self.session
        msg = s.msg(msg_type, content, parent=parent if parent is not None else self.parent, metadata=metadata)
        return self.on_wire(msg)

    def on_wire(self, msg: dict) -> dict:
        s = self.session
        out = {
            "header": msg["header"],
            "parent_header": msg.get("parent_header") or {},
            "metadata": s.unpack(s.pack(msg.get("metadata") or {})),
            "content": s.unpack(s.pack(msg.get("content") or {})),
        }
        out["msg_id"] = out["header"]["msg_id"]
        out["msg_type"] = out["header"]["msg_type"]
        return out

    def send(self, stream, msg_or_type, content=None, parent=None, ident=None, buffers=None, track=False,
             header=None, metadata=None):
        if isinstance(msg_or_type, dict):
            msg = self.on_wire(msg_or_type)
        else:
            msg = self.message(msg_or_type, content or {}, parent, metadata)
        self.emit(msg)
        return msg

    def emit(self, msg: dict) -> None:
        if self.sink is not None:
            self.sink(msg)


class CellStream(io.TextIOBase):
    """A cell's stdout or stderr: text kept until a flush, then one `stream` message. With ``fd`` (1 or 2), what
    is written to that file descriptor itself (`print(file=sys.__stdout__)`, a child process's inherited output)
    is caught too, as ipykernel's own stream catches it (IPKernelApp.capture_fd_output): the descriptor is
    pointed at a file in memory, never a pipe that a large write could fill, and read at each flush."""

    def __init__(self, name: str, capture: Capture, fd: int | None = None):
        super().__init__()
        self.name, self.capture = name, capture
        self._parts: list[str] = []
        self._fd = self._read = None
        if fd is not None:
            self._fd = fd
            self._saved = os.dup(fd)
            self._read = os.memfd_create(f"runbook-{name}", os.MFD_CLOEXEC)
            os.dup2(self._read, fd)
            self._offset = 0
            self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    @property
    def encoding(self):
        return "utf-8"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if text:
            self._parts.append(text)
        return len(text)

    def restore(self) -> None:
        """The file descriptor back to what it was (the grader's stderr): the cells are over."""
        if self._fd is not None:
            self.flush()
            os.dup2(self._saved, self._fd)
            os.close(self._saved)
            os.close(self._read)
            self._fd = None

    def _drain(self) -> None:
        original = sys.__stdout__ if self._fd == 1 else sys.__stderr__
        try:
            original.flush()
        except (OSError, ValueError, AttributeError):
            pass
        while True:
            chunk = os.pread(self._read, 65536, self._offset)
            if not chunk:
                return
            self._offset += len(chunk)
            text = self._decoder.decode(chunk)
            if text:
                self._parts.append(text)

    def flush(self) -> None:
        if self._fd is not None:
            self._drain()
        if self._parts:
            text, self._parts = "".join(self._parts), []
            self.capture.emit(self.capture.message("stream", {"name": self.name, "text": text}))


def build_shell():
    """The kernel's shell, as IPKernelApp builds it for `python -m runbook_lib.kernel`, with its exec_lines run
    (the runbook's warm-up). Built once in the zygote, before any notebook runs; every child runs its cells in
    its own copy."""
    from traitlets.config import Config

    from runbook_lib.engine.limits import IN_PROCESS_MARK
    from runbook_lib.kernel.shell import COMPILER, RunbookShell
    from runbook_lib.notebook.kernel_names import install

    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    capture = Capture()
    shell = RunbookShell.instance(config=config, compiler_class=COMPILER, kernel=None)
    for hook in (shell.displayhook, shell.display_pub):
        hook.session = capture.session
        hook.pub_socket = None
    install(shell)
    shell._runbook_capture = capture
    # a notebook's cells run here as in a kernel: the validation cell arms the run's time and memory limits in
    # the student's child, and a cell beyond one stops with the finding (RunStopped), as under papermill
    setattr(shell, IN_PROCESS_MARK, True)
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = CellStream("stdout", capture), CellStream("stderr", capture)
    try:
        for line in EXEC_LINES:
            shell.run_cell(line, store_history=False)
    finally:
        sys.stdout, sys.stderr = streams
    return shell


class Executor:
    """One notebook's cells through the shell; the outputs as nbclient records them."""

    def __init__(self, nb, shell=None, kernel_name: str = "nvidia-runbook", catch_fds: bool | None = None):
        from nbclient import NotebookClient

        self.nb = nb
        self.shell = shell if shell is not None else build_shell()
        self.capture: Capture = self.shell._runbook_capture
        self.client = NotebookClient(nb, kernel_name=kernel_name)  # only its message handling: no kernel
        self.client.reset_execution_trackers()
        # only in a process of its own (file descriptors 1 and 2 are the process's), and where ipykernel's own
        # stream catches them (ipykernel.iostream.OutStream: Linux or macOS, and not inside pytest's capture)
        self.catch_fds = catch_fds if catch_fds is not None else (
            sys.platform.startswith(("linux", "darwin")) and "PYTEST_CURRENT_TEST" not in os.environ)

    def start(self) -> None:
        """What the kernel's process has before its first cell: its environment additions, the streams."""
        self.shell.init_environment()  # ipykernel's TERM, PAGER, ... in this child's own environment
        sys.stdout = CellStream("stdout", self.capture, fd=1 if self.catch_fds else None)
        sys.stderr = CellStream("stderr", self.capture, fd=2 if self.catch_fds else None)

    def stop(self) -> None:
        """After the last cell: the process's own streams and file descriptors back."""
        for stream in (sys.stdout, sys.stderr):
            if isinstance(stream, CellStream):
                stream.restore()
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__

    def _status(self, state: str) -> dict:
        return self.capture.message("status", {"execution_state": state})

    def execute_cell(self, cell, index: int) -> None:
        """Run one cell as nbclient runs it in a kernel (raises nbclient's CellExecutionError when the cell fails
        and its tags do not allow it)."""
        from nbclient.exceptions import CellExecutionComplete, CellExecutionError

        client = self.client
        if cell.cell_type != "code" or not cell.source.strip():
            return
        if client.skip_cells_with_tag in cell.metadata.get("tags", []):
            return
        cell["metadata"]["execution"] = {}
        allows_errors = client.allow_errors or "raises-exception" in cell.metadata.get("tags", [])
        request = self.capture.session.msg("execute_request", {"code": cell.source, "silent": False,
                                                               "store_history": True, "allow_stdin": False,
                                                               "stop_on_error": not allows_errors})
        parent = request["header"]
        self.capture.parent = parent
        cell.outputs = []
        client.clear_before_next_output = False

        def sink(msg):
            try:
                client.process_message(msg, cell, index)
            except CellExecutionComplete:
                pass

        self.capture.sink = sink
        shell = self.shell
        try:
            sink(self._status("busy"))
            sink(self.capture.message("execute_input", {"code": cell.source,
                                                        "execution_count": shell.execution_count}))
            for hook in (shell.displayhook, shell.display_pub):
                hook.set_parent(request)
            shell._last_traceback = None
            result = shell.run_cell(cell.source, store_history=True, silent=False)
            sys.stdout.flush()
            sys.stderr.flush()
            reply = self._reply(result)
            cell["metadata"]["execution"]["shell.execute_reply"] = _now()
            sink(self._status("idle"))
        finally:
            self.capture.sink = None
        if reply["execution_count"]:
            cell["execution_count"] = reply["execution_count"]
        if reply["status"] == "error" and not allows_errors:
            raise CellExecutionError.from_cell_and_msg(cell, reply)

    def _reply(self, result) -> dict:
        """The content of ipykernel's execute_reply for this result (IPythonKernel.do_execute)."""
        count = self.shell.execution_count - 1
        if result.success:
            return {"status": "ok", "execution_count": count}
        err = result.error_before_exec or result.error_in_exec
        return {"status": "error", "execution_count": count, "ename": type(err).__name__, "evalue": str(err),
                "traceback": getattr(self.shell, "_last_traceback", None) or []}

    def language_info(self) -> dict:
        """What the kernel's kernel_info_reply says of its language (the notebook's metadata.language_info)."""
        from ipykernel.ipkernel import IPythonKernel

        return dict(IPythonKernel.language_info)


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
