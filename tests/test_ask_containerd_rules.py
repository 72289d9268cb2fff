"""Step 9 (runbook_lib/steps/ask_containerd.py) shows only what containerd read for this verdict: a check cell run
again after the config changed, where containerd now refuses the file, shows containerd's refusal and none of the
earlier reading. In process, with the real containerd 1.6 asked (`containerd config dump`), for `make mutate`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from grading_helpers import CONFIG, lab_root
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run

sys.path.insert(0, str(Path(__file__).parent / "real"))
import realenv  # noqa: E402 - tests/real's helpers: skip, or fail under RUNBOOK_REQUIRE_REAL=1

pytestmark = pytest.mark.real


def test_a_verdict_again_after_containerd_refuses_the_file_shows_no_earlier_reading(tmp_path):
    binary = realenv.need_program("containerd")
    realenv.need_root()
    root = lab_root(tmp_path)
    rb = Run(validate(root=str(root), mode="check", containerd_bin=binary)).start()
    try:
        rb.preflight()
        step = rb.step("containerd")
        first = rb.run(step)
        assert first.status == "passed" and first.evidence, first.text()
        config = root / CONFIG
        config.write_text(config.read_text().replace("SystemdCgroup = true", "SystemdCgroup = "))  # not TOML
        again = rb.verdict(step)  # the check cell run again, in the same kernel
    finally:
        rb.finish()
    assert again.status == "failed" and again.problems, again.text()
    assert again.evidence == {}, again.evidence  # nothing containerd read before is shown as read now
