"""Step 5's own rule, judged on its own as `runbook check --step 5` judges it (before step 2's verdict): the
runtime the run registers must be among the runtimes tomllib reads, and when it is not, the finding says which
runtime, which ones tomllib does read ("-" for none), and points at the config. In process, for `make mutate`."""

from __future__ import annotations

import re

from grading_helpers import (CONFIG, TOOLKIT, a_folder_in_its_place, check, check_cell_run_twice, failed_steps, lab_root,
                             written_by_hand)
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run

TABLE = r'\n\s*\[plugins\."io\.containerd\.grpc\.v1\.cri"\.containerd\.runtimes\.{name}(\.options)?\][^\[]*'


def _without(text: str, *names: str) -> str:
    for name in names:  # the table, then its options sub-table (each match ate the newline before the next)
        while re.search(TABLE.format(name=name), text):
            text = re.sub(TABLE.format(name=name), "\n", text, count=1)
    return text


def _step5_alone(root) -> object:
    rb = Run(validate(root=str(root), mode="check")).start()
    try:
        rb.preflight()
        step = rb.step("parse")
        rb.commit(step)
        return rb.verdict(step)
    finally:
        rb.finish()


def test_a_runtime_tomllib_does_not_read_is_named_with_the_ones_it_does(tmp_path):
    root = lab_root(tmp_path)
    (root / CONFIG).write_text(_without((root / CONFIG).read_text(), "nvidia"))
    listed = "runc"
    result = _step5_alone(root)
    assert result.failed
    (p,) = [p for p in result.problems if p.is_a("parse.runtime_not_listed")]
    assert p.path == "/etc/containerd/config.toml"
    assert p.what.en == f"the runtimes tomllib reads ({listed}) do not include nvidia."
    assert p.what.ko == f"tomllib 로 읽은 런타임 목록({listed})에 nvidia 런타임이 없습니다."
    assert p.fix.en == "add the runtimes.nvidia table (step 2)."


def test_a_config_that_lists_the_runtime_is_not_told_to_add_it(tmp_path):
    result = _step5_alone(lab_root(tmp_path))
    assert not any(p.is_a("parse.runtime_not_listed") for p in result.problems), result.text()


# --- a version-2 file lists its default runtime too (containerd 1.x forgets its built-in runc once any runtime
# table is written); a version-3 file need not (2.x keeps it) -----------------------------------------------------

def _v2(default: str, *tables: str) -> bytes:
    head = f'version = 2\n\n[plugins."io.containerd.grpc.v1.cri".containerd]\n  default_runtime_name = {default}\n'
    body = "".join(f'\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.{name}]\n'
                   f'  runtime_type = "io.containerd.runc.v2"\n' for name in tables)
    return (head + body).encode()


def _not_listed(root) -> list[tuple[str, str]]:
    return [(p.values["runtime"], p.values["listed"]) for p in _step5_alone(root).problems
            if p.is_a("parse.runtime_not_listed")]


def test_a_default_other_than_runc_with_its_table_needs_no_runc_table(tmp_path):
    """default_runtime_name = "crun" with crun's table: containerd 1.x needs crun and nvidia, not runc."""
    root = lab_root(tmp_path, _v2('"crun"', "crun", "nvidia"))
    assert _not_listed(root) == []


def test_a_default_containerd_cannot_read_as_a_name_still_needs_runcs_table_in_a_version_2_file(tmp_path):
    """`default_runtime_name = 5`: step 4 says it is not a name, and its fix writes `"runc"`, which containerd
    1.x then needs a table for: step 5 names runc too, so fixing step 4 does not lead into a CRI that will not
    start."""
    root = lab_root(tmp_path, _v2("5", "crun", "nvidia"))
    assert _not_listed(root) == [("runc", "crun, nvidia")]


def test_a_file_without_any_runtime_table_says_it_lists_none(tmp_path):
    """The finding for the runbook's runtime says "-" for the runtimes tomllib reads, not an empty list. (Whether
    runc, which containerd 1.x keeps built in when the file has no runtime table at all, should be named missing
    beside it is not pinned here.)"""
    root = lab_root(tmp_path, _v2('"runc"'))
    assert ("nvidia", "-") in _not_listed(root)


# --- a check cell run again after a fix by hand: parsed.txt judged by what the config, read now, makes it -----

def test_a_parsed_txt_made_right_after_its_plan_failed_passes_the_check_cell_run_again(tmp_path):
    """`mkdir parsed.txt` by mistake: the plan cannot read it, so it holds no new text for the file. Made
    right by hand, the check cell run again judges it against the text the config gives, and passes."""
    root = lab_root(tmp_path)
    path = root / TOOLKIT / "parsed.txt"
    right = path.read_text()
    first, again = check_cell_run_twice(root, "parse", written_by_hand(a_folder_in_its_place(path), right))
    assert first == ["write.failed.folder_stands_where_file"]
    assert again.problems == [] and not again.failed, again.text()


def test_a_parsed_txt_written_wrong_after_its_plan_failed_is_told_the_text_the_config_gives(tmp_path):
    root = lab_root(tmp_path)
    path = root / TOOLKIT / "parsed.txt"
    right = path.read_text()
    _, again = check_cell_run_twice(root, "parse", written_by_hand(a_folder_in_its_place(path), "VERSION=1\n"))
    (p,) = again.problems
    assert p.values["expected"] == right.strip().replace("\n", " / ")


# --- parsed.txt as the student's broken config gives it: right, the mistake is the step that broke it (issue 51) ---

def test_a_parsed_txt_that_lists_what_a_config_without_the_runtime_gives_keeps_its_point(tmp_path):
    """The config lacks the nvidia runtime (step 2 fails), and parsed.txt lists what tomllib reads from that
    config (runc alone): it reports the student's own config faithfully, so step 5 passes, with a warning that
    the file changes once step 2 is fixed (one mistake costs one step); a parsed.txt that matches neither is step
    5's own failure."""
    root = lab_root(tmp_path)
    (root / CONFIG).write_text(_without((root / CONFIG).read_text(), "nvidia"))
    parsed = root / TOOLKIT / "parsed.txt"
    parsed.write_text("VERSION=2\nRUNTIMES=runc\n")
    results = check(root)
    assert 2 in failed_steps(results)
    assert results[5].status == "passed", results[5].text()
    (p,) = results[5].problems
    lab = f"/{TOOLKIT}/parsed.txt"
    assert (p.code, p.path, p.values["step"], p.is_error) == ("file.faithful_to_earlier_step", lab, 2, False)
    assert "step 2" in p.what.en and "2단계" in p.what.ko

    parsed.write_text("VERSION=2\nRUNTIMES=crun\n")
    assert [p.code for p in check(root)[5].problems] == ["file.differs"]


def test_a_wrong_parsed_txts_fix_lists_the_runtimes_in_the_configs_order(tmp_path):
    """Issue 41: the fix said RUNTIMES=nvidia,runc (sorted) to a student whose config has runc's table first, as
    the lab's `list(d[...]["runtimes"])` prints them; a file already right in another order is never rewritten."""
    root = lab_root(tmp_path)
    text = (root / CONFIG).read_text()
    assert text.index("runtimes.runc]") < text.index("runtimes.nvidia]")
    (root / TOOLKIT / "parsed.txt").write_text("VERSION=2\nRUNTIMES=runc\n")
    (p,) = check(root)[5].problems
    assert p.code == "file.differs" and "RUNTIMES=runc,nvidia" in p.what.en and "nvidia,runc" not in p.what.en
    assert "line 2: RUNTIMES must be" in p.fix.en, p.fix.en  # the fix: the line's rule (issue 51), not the answer
    (root / TOOLKIT / "parsed.txt").write_text("VERSION=2\nRUNTIMES=nvidia,runc\n")
    rb = Run(validate(root=str(root))).start()
    try:
        rb.preflight()
        assert [w.changed for w in rb.plans["parse"].writes] == [False]  # the same answer in another order: kept
    finally:
        rb.finish()
