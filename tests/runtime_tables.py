"""The runtime tables the 2.x layout tests write, in process (tests/containerd/test_reads_2x.py) and asked of the
real containerd (tests/real/test_real_2x_layouts.py): one writer, so both ask about the same bytes."""
from __future__ import annotations

V2 = 'plugins."io.containerd.grpc.v1.cri".containerd'
V3 = 'plugins."io.containerd.cri.v1.runtime".containerd'


def runtime_table(name: str, where: str, **options) -> str:
    lines = [f"[{where}.runtimes.{name}]", 'runtime_type = "io.containerd.runc.v2"', f"[{where}.runtimes.{name}.options]"]
    lines += [f"{k} = {str(v).lower() if isinstance(v, bool) else repr(v)}" for k, v in options.items()]
    return "\n".join(lines) + "\n"
