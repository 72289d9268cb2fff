"""Make the screenshots of docs/GRADING.md the way a student and an instructor see the pages: a class of lab
roots (tools/class_demo.py), the student edition run on one of them, `runbook grade`'s class page and feedback
page, and the executed class notebook as JupyterLab renders it (nbconvert's lab template), each opened in
Debian's headless chromium (tools/chromium.py).

    python tools/grading_screenshots.py            # writes docs/img/*.png
    python tools/grading_screenshots.py OUT_DIR

Needs chromium and a Korean font (scripts/install-system-deps.sh installs both).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import chromium  # noqa: E402
import class_demo  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHOTS = {  # file -> (page under the work folder, the element to scroll to, or None for the top)
    "student-lab.png": ("lab/lab.html", "[FAILED] 3."),
    "feedback.png": ("grades/lee/feedback.html", None),
    "class-page.png": ("grades/index.html", None),
    "class-notebook.png": ("grades/class.html", "At a glance"),
}
SCROLL = """(() => {
  const want = %s;
  const hit = [...document.querySelectorAll('h1, h2, h3, pre, code, span')].find(e => e.textContent.includes(want));
  if (hit) { hit.scrollIntoView({block: 'start'}); window.scrollBy(0, -120); }
  return !!hit;
})()"""


def student_lab(work: Path) -> Path:
    """The student edition on a root with the lab's second classic mistake, run top to bottom as a student who
    presses "Run All": steps 1 and 2 pass, step 3's check stops with the finding and its fix."""
    from runbook_lib.lab.init_root import add_mistakes

    root = work / "student"
    add_mistakes(str(root), "string-boolean")
    out = work / "lab"
    out.mkdir()
    executed = out / "lab.ipynb"
    subprocess.run([sys.executable, "-m", "runbook_lib.runner", "--no-progress-bar", "--log-level", "ERROR",
                    str(REPO / "notebooks" / "lab.ipynb"), str(executed), "-p", "root", str(root)],
                   capture_output=True, timeout=600)  # it fails, as it must, at step 3's check
    class_demo.to_html(executed)
    return executed


def main(argv: list[str]) -> int:
    dest = Path(argv[0]) if argv else REPO / "docs" / "img"
    dest.mkdir(parents=True, exist_ok=True)
    binary = chromium.find()
    if binary is None:
        print("chromium 이 없습니다 (scripts/install-system-deps.sh) / chromium is not installed", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="runbook-shots-") as tmp:
        work = Path(tmp)
        class_demo.make_class(work / "class")
        class_demo.run_class_notebook(work / "class", work / "grades")
        student_lab(work)
        with chromium.Chromium(binary, width=1100, height=820) as browser:
            for name, (page, anchor) in SHOTS.items():
                browser.open((work / page).as_uri())
                if anchor:
                    assert browser.evaluate(SCROLL % json.dumps(anchor)), f"{page}: no {anchor!r}"
                browser.screenshot(str(dest / name), full_page=False)
                print(dest / name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
