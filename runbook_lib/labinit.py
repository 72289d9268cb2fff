"""`runbook lab-init ROOT`: a sandbox root holding the course's fixture, as an instructor hands it out.

The fixture is the abbreviated containerd default config the lab starts from; it is written with the same
safe-write path as the runbook itself (atomic, confined to the root, backed up when replaced).
"""

from __future__ import annotations

import os
from importlib.resources import files

FIXTURE = "/opt/fixtures/gpu-airgap/containerd/config.toml.base"


def fixture_bytes() -> bytes:
    return (files("runbook_lib") / "data" / "config.toml.base").read_bytes()


def lab_init(root: str, *, force: bool = False) -> str:
    """Create ROOT (if missing) and its fixture; returns a bilingual report. Refuses '/' and a differing fixture."""
    from .safe_write import commit, ensure_dir, plan_write
    from .target import Target

    if os.path.realpath(root) == "/":
        raise ValueError("lab-init 은 실습용 폴더를 만드는 명령이라 '/' 에는 쓰지 않습니다. 다른 폴더를 주세요.\n"
                         "lab-init prepares a sandbox folder, never '/'; give another folder.")
    os.makedirs(root, exist_ok=True)
    target = Target(os.path.abspath(root))
    ensure_dir(target, os.path.dirname(FIXTURE))
    plan = plan_write(target, FIXTURE, fixture_bytes(), mode=0o644)
    if plan.old is not None and plan.changed and not force:
        raise ValueError(f"{plan.host_path} 에 내용이 다른 fixture 가 이미 있습니다. 그대로 두었습니다 "
                         "(바꾸려면 --force: 원래 파일은 백업됩니다).\n"
                         f"a different fixture already exists at {plan.host_path}; left as it is "
                         "(to replace it, add --force: the old file is backed up).")
    done = commit(plan)
    state = ("새로 썼습니다 / written" if done.written else "이미 같은 내용입니다 / already up to date")
    backup = f"\n백업 / backup: {done.backup}" if done.backup else ""
    return (f"{plan.host_path}: {state}{backup}\n"
            f"다음 / next: runbook run --root {target.root}")
