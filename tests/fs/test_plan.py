"""A plan's diff (runbook_lib/fs/plan.py: Plan.diffs) is computed once for the bytes the plan holds: the same text
as difflib gives each time, and again when a write's bytes are replaced or a write is added."""

from __future__ import annotations

from runbook_lib.fs.plan import Plan
from runbook_lib.fs.safe_write import WritePlan
from runbook_lib.fs.target import Target


def _write(tmp_path, name: str, old: bytes | None, new: bytes) -> WritePlan:
    return WritePlan(Target(tmp_path), f"/{name}", tmp_path / name, old, new)


def test_the_diff_is_computed_once_and_again_only_when_the_bytes_change(tmp_path, monkeypatch):
    plan = Plan(writes=[_write(tmp_path, "a.toml", b"x = 1\n", b"x = 1\ny = 2\n"), _write(tmp_path, "same", b"k\n", b"k\n")],
                retired=[_write(tmp_path, "old.yaml", b"kind: x\n", b"")])
    expected = [("/a.toml", plan.writes[0].diff()),
                ("/old.yaml", plan.retired[0].diff().replace("+++ b/old.yaml", "+++ /dev/null"))]
    calls = []
    real = WritePlan.diff
    monkeypatch.setattr(WritePlan, "diff", lambda self: calls.append(self.lab_path) or real(self))
    assert plan.diffs() == expected
    assert plan.diff == "".join(text for _, text in expected)
    assert calls == ["/a.toml", "/old.yaml"]  # once each, the unchanged file never

    plan.writes[0].new = b"x = 2\n"  # the bytes replaced: the diff follows them
    assert plan.diffs()[0] == ("/a.toml", real(plan.writes[0]))
    plan.writes.append(_write(tmp_path, "b.txt", None, b"B=1\n"))  # a write added: its diff is there too
    assert [path for path, _ in plan.diffs()] == ["/a.toml", "/b.txt", "/old.yaml"]
    assert calls == ["/a.toml", "/old.yaml"] + ["/a.toml", "/old.yaml"] + ["/a.toml", "/b.txt", "/old.yaml"]
