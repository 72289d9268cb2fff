"""The edit alone, in process: runbook_lib.containerd.edit on a config's text, repeated, median in ms.

Timed in CPU time of this process (time.process_time), which other load on the machine disturbs far less
than wall time; the wall-clock median is reported beside it.

What is timed is what step 2 does to the text once the file is read: tomllib parse, template_runtime
(the new table, copied from the default runtime) and plan_runtime (layout scan, insertion, read-back check).
Configs: containerd 1.6's default, and that default grown with N extra runtimes (each a runtime table and
its options table, as a real node with many runtime handlers has) to tens of thousands of lines.
Prints one JSON object on stdout.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
import tomllib
from pathlib import Path

from runbook_lib.containerd import layout
from runbook_lib.containerd.edit import RuntimeWanted, plan_runtime, template_runtime
from runbook_lib.containerd.versions import detect_version

DEFAULT_16 = Path(__file__).resolve().parents[1] / "tests/fixtures/containerd/containerd-1.6.20-default.toml"
HEADER = '      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n'
RUNTIME = '''
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.{name}]
          base_runtime_spec = ""
          cni_conf_dir = ""
          cni_max_conf_num = 0
          container_annotations = []
          pod_annotations = []
          privileged_without_host_devices = false
          runtime_engine = ""
          runtime_path = ""
          runtime_root = ""
          runtime_type = "io.containerd.runc.v2"

          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.{name}.options]
            BinaryName = "/usr/local/bin/{name}"
            SystemdCgroup = true
'''


def grown(text: str, extra_runtimes: int) -> str:
    """The default config with extra runtimes inserted before runc (so the new one goes after runc)."""
    at = text.index(HEADER.strip())
    at = text.rindex("\n", 0, at) + 1
    block = "".join(RUNTIME.format(name=f"rt{i:05d}") for i in range(extra_runtimes))
    return text[:at] + block.lstrip("\n") + "\n" + text[at:]


def edit_once(text: str, wanted: RuntimeWanted) -> str:
    clear = getattr(layout.scan, "cache_clear", None)
    if clear:  # a run scans its config afresh: no layout left over from the previous repetition
        clear()
    data = tomllib.loads(text)
    version = detect_version(data, path="/etc/containerd/config.toml", empty=not text.strip())
    template, source = template_runtime(data, version, wanted)
    plan = plan_runtime(text, data, version, wanted, template, lab_path="/etc/containerd/config.toml",
                        source_name=source)
    return plan.text


def measure(text: str, repeat: int) -> dict:
    wanted = RuntimeWanted("nvidia", "/usr/bin/nvidia-container-runtime", True)
    new = edit_once(text, wanted)  # warm (and check that it works)
    assert new != text and 'runtimes.nvidia]' in new
    cpu, wall = [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        edit_once(text, wanted)
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    lines = text.count("\n")
    med = statistics.median(cpu) * 1000
    return {"lines": lines, "median_ms": round(med, 3), "min_ms": round(min(cpu) * 1000, 3),
            "median_wall_ms": round(statistics.median(wall) * 1000, 3),
            "ms_per_1000_lines": round(med / lines * 1000, 3), "repeat": repeat}


def main(argv: list[str]) -> int:
    repeat = int(argv[0]) if argv else 21
    base = DEFAULT_16.read_text(encoding="utf-8")
    out = {"default_1_6": measure(base, repeat), "grown": []}
    for extra in (700, 1400, 2800):  # about 11k, 22k and 45k lines
        out["grown"].append(measure(grown(base, extra), max(3, repeat // 4)))
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
