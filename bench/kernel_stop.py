"""How long RunbookKernelManager takes to stop a kernel that hangs on its way out (an atexit handler that
sleeps), against jupyter_client's own AsyncKernelManager. Prints one JSON object (seconds).
The test (tests/test_kernel_start.py) only checks that the kernel is ended by a signal; the time is here."""

from __future__ import annotations

import asyncio
import json
import time

from jupyter_client.manager import AsyncKernelManager

from runbook_lib.kernel_manager import RunbookKernelManager


async def stop_seconds(cls) -> float:
    km = cls(kernel_name="python3")
    await km.start_kernel()
    kc = km.client()
    kc.start_channels()
    await kc.wait_for_ready(timeout=120)
    await kc.execute_interactive("import atexit, time; _ = atexit.register(time.sleep, 600)", timeout=60)
    kc.stop_channels()
    started = time.perf_counter()
    await km.shutdown_kernel()
    return round(time.perf_counter() - started, 3)


def main() -> int:
    print(json.dumps({"runbook": asyncio.run(stop_seconds(RunbookKernelManager)),
                      "jupyter_client": asyncio.run(stop_seconds(AsyncKernelManager))}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
