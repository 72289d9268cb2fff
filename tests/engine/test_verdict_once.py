"""An unreadable config is explained once (where it is first found); later steps point back to it."""

from pathlib import Path

from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run
from helpers import run_numbered

BROKEN = Path(__file__).parents[1] / "fixtures/broken/toml-syntax-error.toml"


def test_toml_error_explained_once_then_referenced(tmp_path):
    (tmp_path / "etc/containerd").mkdir(parents=True)
    (tmp_path / "etc/containerd/config.toml").write_bytes(BROKEN.read_bytes())
    rb = Run(validate(root=str(tmp_path), mode="check")).start()
    results = run_numbered(rb, range(1, 9))
    first = next(r for r in results if any(p.line for p in r.problems))
    full = next(p for p in first.problems if p.line)
    assert full.line and full.excerpt, "the first report carries the position and the offending line"
    later = [p for r in results if r.step > first.step for p in r.problems if p.line == full.line]
    assert later, "later steps still say they could not be checked"
    for p in later:
        assert f"step {first.step}" in p.what.en and f"{first.step}단계" in p.what.ko
        assert p.excerpt is None


def test_summary_text_columns_line_up_with_korean_titles(tmp_path):
    from runbook_lib.findings.messages import display_width
    from runbook_lib.engine.result import summary_text
    rb = Run(validate(root=str(tmp_path))).start()
    text = summary_text(run_numbered(rb, range(1, 9)))
    rows = text.splitlines()
    columns = {display_width(row[: row.rindex("  ")]) for row in rows}
    assert len(columns) == 1, text
