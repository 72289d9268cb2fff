"""The instructor's view reads right without a browser too: the class notebook's links resolve from where the
runner saved it (not from the folder the command was typed in), and the students' pages carry no operator-only
hint."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from urllib.parse import unquote

from helpers import REPO

sys.path.insert(0, str(REPO / "tools"))
import class_demo  # noqa: E402


def test_the_class_notebooks_links_resolve_from_the_executed_notebook(tmp_path):
    class_demo.make_class(tmp_path / "class", {"kim": None, "lee": "string-boolean"})
    out = tmp_path / "term" / "grades"
    out.mkdir(parents=True)
    executed = out / "class.ipynb"
    proc = subprocess.run([sys.executable, "-m", "runbook_lib.runner", "--no-progress-bar", "--log-level", "ERROR",
                           str(REPO / "notebooks/class.ipynb"), str(executed), "-p", "roots", f"{tmp_path}/class/*",
                           "-p", "out", str(out)], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    html = "".join("".join(o["data"].get("text/html", "")) for c in json.loads(executed.read_text())["cells"]
                   for o in c.get("outputs", []) if "data" in o)
    hrefs = re.findall(r'href="([^"#]+)"', html)
    assert {"kim/feedback.html", "lee/feedback.html", "index.html", "grades.csv"} <= set(hrefs)
    assert [h for h in hrefs if not (executed.parent / unquote(h)).is_file()] == []
    for page in (out / "kim" / "feedback.html", out / "kim" / "results.json"):
        text = page.read_text()
        assert "containerd_bin" not in text and "unshare" not in text, page  # the operator's hint, not the student's
