"""How long RunbookKernelManager takes to stop a kernel that hangs on its way out (an atexit handler that
sleeps), against jupyter_client's own AsyncKernelManager. Prints one JSON object (seconds).
The test (tests/kernel/test_early.py, whose helper this uses) only checks that the kernel is ended by a signal;
the time is measured here."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager

from runbook_lib.kernel.manager import RunbookKernelManager

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_kernel_start import stop_a_kernel_that_hangs  # noqa: E402


def main() -> int:
    seconds = {name: round(asyncio.run(stop_a_kernel_that_hangs(cls))[0], 3)
               for name, cls in (("runbook", RunbookKernelManager), ("jupyter_client", AsyncKernelManager))}
    print(json.dumps(seconds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
