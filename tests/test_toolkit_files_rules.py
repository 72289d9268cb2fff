"""The rules a toolkit file's verdict keeps (runbook_lib/steps/_files.py), each said once for every way a student
writes the file differently: the finding names the file, the line and what to write instead, and a difference
is named for what it is (line endings, Python's booleans, an invisible character), never for what it is not.

In process, through a real check run on a lab root, so `make mutate` sees them (tests/test_student_files.py
holds the mistakes students make; these are the rules behind every one of them)."""

from __future__ import annotations

import pytest

from grading_helpers import GOOD, TOOLKIT, check, lab_root, run_all

DEFAULT = "/root/toolkit/default.txt"
DEFAULT_SHOWN = "DEFAULT=runc / WHY=runtimeclass"  # the whole file, as a fix shows it
REPORT = "/root/toolkit/report.txt"


def _only_finding(results, step: int):
    problems = [p for p in results[step].problems if p.is_error]
    assert len(problems) == 1, results[step].text()
    return problems[0]


def _names_the_file_and_the_fix(p, lab_path: str, expected: str) -> None:
    """Both languages: the file in what is wrong, the whole expected content in the fix, no value left out."""
    assert p.path == lab_path
    for said in (p.what.en, p.what.ko):
        assert lab_path in said and "None" not in said and "{" not in said, said
    for said in (p.fix.en, p.fix.ko):
        assert expected in said and "None" not in said, said


@pytest.mark.parametrize("written", [
    b"DEFAULT=runc\r\nWHY=runtimeclass\r\n",  # Windows line endings
    b"DEFAULT=runc\r\nWHY=runtimeclass",      # ... and no final newline, which alone is allowed
    b"DEFAULT=runc\r\nWHY=runtimeclass\n",    # one line's ending only
])
def test_a_file_that_differs_only_by_its_line_endings_is_said_so(tmp_path, written):
    root = lab_root(tmp_path)
    (root / TOOLKIT / "default.txt").write_bytes(written)
    p = _only_finding(check(root), 4)
    assert p.code == "file.line_endings", p
    _names_the_file_and_the_fix(p, DEFAULT, DEFAULT_SHOWN)


@pytest.mark.parametrize("systemd_cgroup, python, toml", [(True, "True", "true"), (False, "False", "false")])
def test_a_boolean_as_python_prints_it_is_named_with_its_toml_spelling(tmp_path, systemd_cgroup, python, toml):
    """print(f"SYSTEMD_CGROUP={value}") of a parsed boolean, either value: named as Python's spelling."""
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / "etc/containerd/config.toml").write_bytes(GOOD.read_bytes())
    applied = run_all(root, systemd_cgroup=systemd_cgroup)
    assert not any(r.failed for r in applied.values()), [r.text() for r in applied.values() if r.failed]
    report = root / TOOLKIT / "report.txt"
    assert f"SYSTEMD_CGROUP={toml}\n" in report.read_text()
    shown = report.read_text().strip().replace("\n", " / ")  # the whole file as the fix shows it
    report.write_text(report.read_text().replace(f"SYSTEMD_CGROUP={toml}", f"SYSTEMD_CGROUP={python}"))
    p = _only_finding(check(root, systemd_cgroup=systemd_cgroup), 8)
    assert p.code == "file.python_boolean", p
    assert p.line == 4 and f"SYSTEMD_CGROUP={python}" in p.what.en
    assert p.fix.en.startswith(f"write SYSTEMD_CGROUP={toml} (in Python")
    # the file, the line and the whole fix, in both languages
    assert p.what.en.startswith(f"line 4 of {REPORT} spells the boolean")
    assert p.what.ko.startswith(f"{REPORT} 의 4번째 줄이")
    _names_the_file_and_the_fix(p, REPORT, shown)


@pytest.mark.parametrize("written, line, en, ko", [
    # two wrong lines: each named with its number, what it holds and what it must hold, one after the other
    ("DEFAULT=nvidia\nWHY=other\n", 1,
     "line 1 DEFAULT=nvidia → DEFAULT=runc; line 2 WHY=other → WHY=runtimeclass",
     "1번째 줄 DEFAULT=nvidia → DEFAULT=runc; 2번째 줄 WHY=other → WHY=runtimeclass"),
    # a line too many: the fix says to delete it
    ("DEFAULT=runc\nWHY=runtimeclass\nEXTRA=1\n", 3, "line 3 EXTRA=1 → (delete)", "3번째 줄 EXTRA=1 → (지울 줄)"),
    # a line too few: said missing
    ("DEFAULT=runc\n", 2, "line 2 (missing) → WHY=runtimeclass", "2번째 줄 (없음) → WHY=runtimeclass"),
    # a wrong value in a \r\n file: the line as the student sees it, without the carriage return
    ("DEFAULT=nvidia\r\nWHY=runtimeclass\r\n", 1, "line 1 DEFAULT=nvidia → DEFAULT=runc;",
     "1번째 줄 DEFAULT=nvidia → DEFAULT=runc;"),
])
def test_a_file_that_differs_names_every_wrong_line_and_the_whole_fix(tmp_path, written, line, en, ko):
    root = lab_root(tmp_path)
    (root / TOOLKIT / "default.txt").write_bytes(written.encode())
    p = _only_finding(check(root), 4)
    assert p.code == "file.differs", p
    assert p.line == line
    assert en in p.what.en and ko in p.what.ko, p.what
    assert "\r" not in p.what.en + p.what.ko
    _names_the_file_and_the_fix(p, DEFAULT, DEFAULT_SHOWN)


SPACE_END, SPACE_START = ("a space at the end", "줄 끝에 공백"), ("a space at the start", "줄 앞에 공백")


@pytest.mark.parametrize("char", [" ", "\t", "X", "s", "0", "\u00a0"])
def test_a_space_is_named_only_where_there_is_one(tmp_path, char):
    """A wrong line's invisible space is named, at its end or at its start; any other character there (a tab, a
    letter, a digit, a no-break space) is not a space."""
    root = lab_root(tmp_path)
    for written, named in ((f"DEFAULT=runc{char}\nWHY=runtimeclass\n", SPACE_END),
                           (f"{char}DEFAULT=runc\nWHY=runtimeclass\n", SPACE_START)):
        (root / TOOLKIT / "default.txt").write_bytes(written.encode())
        p = _only_finding(check(root), 4)
        assert p.code == "file.differs" and p.line == 1, p
        for lang, said in enumerate((p.what.en, p.what.ko)):
            assert (named[lang] in said) == (char == " "), (repr(char), said)
            other = SPACE_START if named is SPACE_END else SPACE_END
            assert other[lang] not in said, (repr(char), said)


def test_every_invisible_character_of_a_wrong_line_is_named_one_after_the_other(tmp_path):
    """A line with a tab, a space at its end and one at its start: all three named, in that order, each once,
    separated as a list is."""
    root = lab_root(tmp_path)
    (root / TOOLKIT / "default.txt").write_bytes(b" DEFAULT=runc\t \nWHY=runtimeclass\n")
    p = _only_finding(check(root), 4)
    assert p.code == "file.differs" and p.line == 1, p
    assert "(a tab character, a space at the end, a space at the start) → DEFAULT=runc" in p.what.en, p.what.en
    assert "(탭 문자, 줄 끝에 공백, 줄 앞에 공백) → DEFAULT=runc" in p.what.ko, p.what.ko


def test_a_list_whose_names_hold_an_equals_sign_is_still_a_list_in_any_order():
    """A runtime's name is any TOML key (`runtimes."gpu=a100"`): parsed.txt's RUNTIMES line is split at its first
    "=", so its names, in another order and with spaces after the commas, are still right."""
    from runbook_lib.steps.lines import Rule, same

    rule = Rule(lists=("RUNTIMES",))
    assert same(rule, "VERSION=2\nRUNTIMES=runc, gpu=a100, nvidia\n", "VERSION=2\nRUNTIMES=gpu=a100,nvidia,runc\n")
    assert not same(rule, "VERSION=2\nRUNTIMES=runc, gpu=a100\n", "VERSION=2\nRUNTIMES=gpu=a100,nvidia,runc\n")


def test_a_report_that_says_what_a_broken_option_gives_is_blocked_by_step_3(tmp_path):
    """SystemdCgroup = false for nvidia fails step 3; a report.txt that reports that false is right for the
    config as it is: step 8 is blocked by step 3, and says the lines it holds once step 3 is fixed. A report
    that says neither is step 8's own failure."""
    import tomlkit

    from grading_helpers import CONFIG
    from runbook_lib.engine.result import BLOCKED

    root = lab_root(tmp_path)
    doc = tomlkit.parse((root / CONFIG).read_text())
    doc["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]["nvidia"]["options"]["SystemdCgroup"] = False
    (root / CONFIG).write_text(tomlkit.dumps(doc))
    report = root / TOOLKIT / "report.txt"
    right = report.read_text()
    report.write_text(right.replace("SYSTEMD_CGROUP=true", "SYSTEMD_CGROUP=false"))
    results = check(root)
    assert results[3].failed
    assert results[8].status == BLOCKED, results[8].text()
    (p,) = results[8].problems
    assert (p.code, p.values["step"], p.values["expected"]) == (
        "file.after_earlier_step", 3, right.strip().replace("\n", " / "))

    report.write_text(right.replace("SYSTEMD_CGROUP=true", "SYSTEMD_CGROUP=yes"))
    assert [p.code for p in check(root)[8].problems] == ["file.differs"]
