"""Kernel start alone, in whichever environment runs this file: start the `python3` kernel, wait until it
answers, run one empty cell, shut it down. Prints one JSON object (seconds). Standard library + jupyter_client."""

from __future__ import annotations

import json
import sys
import time

from jupyter_client.manager import KernelManager


def main() -> int:
    km = KernelManager(kernel_name="python3", transport="ipc", ip=sys.argv[1] if len(sys.argv) > 1 else "kernel")
    t0 = time.perf_counter()
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=120)
    t1 = time.perf_counter()
    kc.execute_interactive("pass", timeout=60)
    t2 = time.perf_counter()
    kc.stop_channels()
    km.shutdown_kernel(now=False)
    t3 = time.perf_counter()
    print(json.dumps({"ready": round(t1 - t0, 4), "first_cell": round(t2 - t1, 4), "shutdown": round(t3 - t2, 4)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
