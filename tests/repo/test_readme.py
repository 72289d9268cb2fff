"""The README counts the runbook's steps as the runbook does: its heading and its numbered list."""

import re

from helpers import REPO
from runbook_lib.steps import STEPS

NUMBERED = sorted(s.NUMBER for s in STEPS if isinstance(s.NUMBER, int))  # the restart is a section, not a step

NUMBERS = {8: ("여덟", "eight"), 9: ("아홉", "nine"), 10: ("열", "ten")}


def test_the_readme_lists_every_step_and_says_how_many():
    text = (REPO / "README.md").read_text()
    ko, en = NUMBERS[len(NUMBERED)]
    heading = re.search(r"^## (\S+) 단계 / The (\w+) steps$", text, flags=re.M)
    assert heading and heading.groups() == (ko, en), heading and heading.group(0)
    section = text[heading.end():].split("\n## ", 1)[0]
    assert re.findall(r"^(\d+)\. ", section, flags=re.M) == [str(n) for n in NUMBERED]
