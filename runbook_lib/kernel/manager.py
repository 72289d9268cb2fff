"""The kernel manager and papermill engine our runs use: private IPC sockets, an early kernel, a quick stop.

- **Private IPC sockets.** Every kernel talks over Unix sockets in a folder of its own (0700) instead of
  TCP ports picked at random, which two kernels started at the same moment could both pick, and which
  ipykernel warns about ("running over TCP without encryption").
- **The early kernel.** When `kernel_early.spawn()` started the kernel before papermill was imported, it is
  adopted here, but only if jupyter_client's own command, environment and working directory for this launch
  are exactly the ones it was started with; otherwise it is stopped and the kernel is launched as usual.
- **The runbook's module is imported while the kernel boots** (`kernel_early.KERNEL_EXTRA_ARGUMENTS`).
- **A quick stop.** jupyter_client checks every 0.1 s whether a stopping kernel has exited; here it checks every
  10 ms. The shutdown is the same polite request, then SIGTERM, then SIGKILL, but each wait is 0.5 s instead
  of 2.5 s: ipykernel 7 sometimes hangs on its way out (its control thread waits for a stream flush that
  never comes; seen here in about one run in ten), which cost 2.5 s of nothing. A kernel normally exits in
  0.1-0.2 s; the run's outputs have all arrived before the shutdown starts, so a late kernel loses nothing.
- **No wait for the exit where the process ends next.** In the runner (`python -m runbook_lib.runner`, `make
  run`), whose process ends once the notebook is written, `detach_at_shutdown()` makes the stop the request alone:
  the kernel's own exit (~0.07 s: ipykernel closing its sockets and threads, nothing of the run's) goes on
  while papermill writes the notebook and the summary is printed. A kernel still on its way out when the runner
  exits gets SIGKILL from its lifeline (runbook_lib/fs/lifeline.py); its history is in memory, so nothing of
  value is cut.

`engine_name="runbook"` selects all of this once `register()` has run in the process (our runner and
`runbook run` do it). It is deliberately not a papermill entry point: papermill loads entry points while
`papermill.engines` is still being imported, so importing this module first would be a circular import.
"""

from __future__ import annotations

import os
import shutil

from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner
from papermill.engines import NBClientEngine, papermill_engines
from traitlets import Float

from runbook_lib.kernel import early as kernel_early

ENGINE_NAME = "runbook"
_POLL_SECONDS = 0.01
_detached = False  # detach_at_shutdown(): the process ends right after the run


def detach_at_shutdown() -> None:
    """From now on, a stopping kernel is sent its shutdown request and not waited for (see the docstring).
    Only for a process that ends once its run is done: elsewhere an exited kernel would wait to be reaped."""
    global _detached
    _detached = True


class RunbookKernelManager(AsyncKernelManager):
    """AsyncKernelManager on private IPC sockets that adopts a matching early kernel."""

    # jupyter_client waits half of this for the kernel to exit, then SIGTERMs it and waits the other half.
    shutdown_wait_time = Float(1.0, config=True, help="Seconds to wait for a kernel to stop (see the docstring).")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._early: kernel_early.EarlyKernel | None = None
        self._private_folder: str | None = None
        self.adopted_early_kernel = False
        self.early_kernel_refused: str | None = None  # why an early kernel was not used (tests read it)

    async def _async_pre_start_kernel(self, **kw):
        if self._private_folder is None and self._early is None:
            early = kernel_early.claim(self.kernel_name)
            if early is not None:
                # Its connection file is already written; load it so jupyter_client writes nothing new.
                self._early, self._private_folder = early, early.folder
                self.connection_file = early.connection_file
                self.load_connection_file()
                self._connection_file_written = True
            else:
                try:
                    self._private_folder = kernel_early.private_folder()
                except OSError:  # no writable temporary folder: jupyter_client's defaults (TCP, runtime dir)
                    self._private_folder = ""
                if self._private_folder:
                    self.transport = "ipc"
                    self.ip = os.path.join(self._private_folder, "kernel")
                    self.connection_file = os.path.join(self._private_folder, "connection.json")
        return await super()._async_pre_start_kernel(**kw)

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        early, self._early = self._early, None
        if early is not None:
            reason = early.mismatch(kernel_cmd, kw)
            if reason is None and isinstance(self.provisioner, LocalProvisioner):
                reason = self._adopt(early)
                if reason is None:
                    return
            self.early_kernel_refused = reason or "not a local provisioner"
            self.log.debug("early kernel not used: %s", self.early_kernel_refused)
            early.end_process()
            self.cleanup_ipc_files()  # the sockets it bound; the connection file stays for the new kernel
        await super()._async_launch_kernel(kernel_cmd, **kw)

    def _adopt(self, early: kernel_early.EarlyKernel) -> str | None:
        """Make the provisioner own the early process, as its launch_kernel() would have; None on success."""
        provisioner = self.provisioner
        try:
            provisioner.process = early.process
            provisioner.pid = early.process.pid
            try:
                provisioner.pgid = os.getpgid(early.process.pid)
            except OSError:
                provisioner.pgid = None
            provisioner.cwd = early.cwd
            self._reconcile_connection_info(provisioner.connection_info)
        except (AttributeError, TypeError, ValueError, RuntimeError) as exc:  # another jupyter_client's internals
            provisioner.process = None
            return f"could not adopt it: {type(exc).__name__}: {exc}"
        self.adopted_early_kernel = True
        return None

    async def _async_interrupt_kernel(self) -> None:
        """No SIGINT to a kernel being stopped: jupyter_client sends one before every shutdown request, and a
        kernel that is handling a message just then logs "KeyboardInterrupt caught in kernel" (in the class
        notebook's kernels.log, on `runbook grade`'s stderr). Every output has arrived before the stop."""
        if self.shutting_down:
            return
        await super()._async_interrupt_kernel()

    interrupt_kernel = _async_interrupt_kernel

    async def _async_wait(self, pollinterval: float = _POLL_SECONDS) -> None:
        await super()._async_wait(pollinterval=min(pollinterval, _POLL_SECONDS))

    async def _async_finish_shutdown(self, waittime=None, pollinterval=0.1, restart=False) -> None:
        if _detached and not restart and self.shutting_down:
            return  # the request is sent; the kernel ends by itself, or with this process
        await super()._async_finish_shutdown(waittime=waittime, pollinterval=pollinterval, restart=restart)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if not restart and self._private_folder:
            shutil.rmtree(self._private_folder, ignore_errors=True)
            self._private_folder = None

    # AsyncKernelManager binds the public name to KernelManager's method; point it at ours.
    cleanup_resources = _async_cleanup_resources


class RunbookEngine(NBClientEngine):
    """papermill's nbclient engine with RunbookKernelManager."""

    @classmethod
    def execute_managed_notebook(cls, nb_man, kernel_name, **kwargs):
        kwargs.setdefault("kernel_manager_class", RunbookKernelManager)
        kwargs.setdefault("extra_arguments", list(kernel_early.KERNEL_EXTRA_ARGUMENTS))
        return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)


def register() -> None:
    """Make `engine_name="runbook"` (`--engine runbook`) available in this process."""
    papermill_engines.register(ENGINE_NAME, RunbookEngine)
