"""The README counts the runbook's steps as the runbook does (its heading and its numbered list), stays short,
and its links and the docs' lead to files."""

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


def test_the_readme_is_short_and_its_links_and_the_docs_links_lead_to_files():
    """A newcomer's five minutes (issue 53): at most 150 lines; every relative link of the README and of docs/
    (the reference moved there) names a file of the repository."""
    readme = REPO / "README.md"
    assert len(readme.read_text(encoding="utf-8").splitlines()) <= 150
    broken = []
    for doc in [readme, *sorted((REPO / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)\s]+)\)", doc.read_text(encoding="utf-8")):
            if target.startswith(("http://", "https://", "#", "mailto:")):
                continue
            if not (doc.parent / target.split("#", 1)[0]).exists():
                broken.append(f"{doc.relative_to(REPO)}: {target}")
    assert broken == []
