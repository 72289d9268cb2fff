"""A soak run, not a test: SIGKILL a separate process running every step at random moments, then check the
same invariants as tests/fs/test_crash.py (every target old or new, backups first, the next run recovers).

tests/fs/test_crash.py kills before every file-system change, deterministically; this adds kills that land
anywhere (mid-syscall, in the interpreter), which no test can make repeatable. Prints one JSON object:
how many kills landed before the run finished. Usage: python bench/crash_soak.py [ROUNDS] [SEED]"""

from __future__ import annotations

import json
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path.insert(0, str(TESTS))
from reliability_helpers import BASE, make_root, run_apply  # noqa: E402
from test_crash import _assert_old_or_new, _assert_recovers, _state  # noqa: E402

SCRIPT = ("import sys; sys.path.insert(0, sys.argv[2]); from reliability_helpers import run_apply; "
          "print('go', flush=True); run_apply(sys.argv[1])")


def main(rounds: int = 20, seed: int = 6) -> int:
    with tempfile.TemporaryDirectory(prefix="runbook-soak-") as tmp:
        tmp = Path(tmp)
        template = make_root(tmp / "template", BASE)
        old = _state(template)
        reference = tmp / "reference"
        shutil.copytree(template, reference, symlinks=True)
        run_apply(reference)
        new = _state(reference)
        rng = random.Random(seed)
        mid_run = 0
        for i in range(rounds):
            root = tmp / f"r{i}"
            shutil.copytree(template, root, symlinks=True)
            proc = subprocess.Popen([sys.executable, "-c", SCRIPT, str(root), str(TESTS)], stdout=subprocess.PIPE, text=True)
            assert proc.stdout.readline().strip() == "go"  # imports done: the steps start now
            time.sleep(rng.uniform(0.0, 0.25))
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            mid_run += _state(root) != new
            _assert_old_or_new(root, old, new, f"random kill {i}")
            _assert_recovers(root, new, f"random kill {i}")
            shutil.rmtree(root)
    print(json.dumps({"rounds": rounds, "seed": seed, "kills_before_the_end": mid_run, "invariants": "held"}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*(int(a) for a in sys.argv[1:3])))
