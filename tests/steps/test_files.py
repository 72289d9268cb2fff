"""The rules a toolkit file's verdict keeps (runbook_lib/steps/_files.py), each said once for every way a student
writes the file differently: the finding names the file, the line and what to write instead, and a difference
is named for what it is (line endings, Python's booleans, an invisible character), never for what it is not.

In process, through a real check run on a lab root, so `make mutate` sees them (tests/lab/test_student_files.py
holds the mistakes students make; these are the rules behind every one of them)."""

from __future__ import annotations

import os

import pytest

from grading_helpers import GOOD, TOOLKIT, check, lab_root, run_all

DEFAULT = "/root/toolkit/default.txt"
DEFAULT_SHOWN = "DEFAULT=runc / WHY=runtimeclass"  # the whole file, as a fix shows it
REPORT = "/root/toolkit/report.txt"


def _only_finding(results, step: int):
    problems = [p for p in results[step].problems if p.is_error]
    assert len(problems) == 1, results[step].text()
    return problems[0]


def _names_the_file_and_the_fix(p, lab_path: str, expected: str, fix: str) -> None:
    """Both languages: the file in what is wrong, no value left out; the fix says ``fix`` (English) and never the
    whole expected content (issue 51: the rule to apply, not the full answer)."""
    assert p.path == lab_path
    for said in (p.what.en, p.what.ko):
        assert lab_path in said and "None" not in said and "{" not in said, said
    for said in (p.fix.en, p.fix.ko):
        assert expected not in said and "None" not in said and "<" + "rules>" not in said, said
    assert fix in p.fix.en, p.fix.en


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
    assert p.values["expected"] == DEFAULT_SHOWN  # the finding's value in grades.json: the file as it must read
    # the command as pasted: the file under the root (issue 51)
    _names_the_file_and_the_fix(p, DEFAULT, DEFAULT_SHOWN, f"sed -i 's/\\r$//' {os.path.realpath(root)}{DEFAULT}")


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
    assert p.values["expected"] == shown
    assert p.line == 4 and f"SYSTEMD_CGROUP={python}" in p.what.en
    assert p.fix.en.startswith(f"write SYSTEMD_CGROUP={toml} (in Python")
    # the file, the line and the whole fix, in both languages
    assert p.what.en.startswith(f"line 4 of {REPORT} spells the boolean")
    assert p.what.ko.startswith(f"{REPORT} 의 4번째 줄이")
    _names_the_file_and_the_fix(p, REPORT, shown, f"write SYSTEMD_CGROUP={toml} (in Python, str(value).lower()).")


@pytest.mark.parametrize("written, line, lines_en, lines_ko, fixed", [
    # echo "RUNTIME = $runtime": both sides
    ("DEFAULT = runc\nWHY=runtimeclass\n", 1, "line 1 DEFAULT = runc → DEFAULT=runc", "1번째 줄 DEFAULT = runc → DEFAULT=runc",
     "DEFAULT=runc"),
    # one side only, a tab, and two lines: each named, the fix every line as it must be
    ("DEFAULT=runc\nWHY\t= runtimeclass\n", 2, "line 2 WHY\t= runtimeclass (a tab character) → WHY=runtimeclass",
     "2번째 줄 WHY\t= runtimeclass (탭 문자) → WHY=runtimeclass", "WHY=runtimeclass"),
    ("DEFAULT =runc\nWHY= runtimeclass\n", 1,
     "line 1 DEFAULT =runc → DEFAULT=runc; line 2 WHY= runtimeclass → WHY=runtimeclass",
     "1번째 줄 DEFAULT =runc → DEFAULT=runc; 2번째 줄 WHY= runtimeclass → WHY=runtimeclass",
     "DEFAULT=runc; WHY=runtimeclass"),
])
def test_blanks_around_the_equals_sign_are_named_with_each_line_as_it_must_be(tmp_path, written, line, lines_en,
                                                                             lines_ko, fixed):
    root = lab_root(tmp_path)
    (root / TOOLKIT / "default.txt").write_text(written)
    p = _only_finding(check(root), 4)
    assert p.code == "file.spaces_around_equals", p
    assert (p.path, p.line, p.values["expected"]) == (DEFAULT, line, DEFAULT_SHOWN)
    assert p.what.en == (f"{DEFAULT} has blanks around the = of a line: {lines_en}; its lines are KEY=value, "
                         "with nothing on either side of the =.")
    assert p.what.ko == (f"{DEFAULT} 의 줄에 = 앞뒤로 공백이 있습니다: {lines_ko}. 이 파일의 줄은 KEY=값 이고, "
                         "= 앞뒤에는 아무것도 두지 않습니다.")
    assert (p.fix.en, p.fix.ko) == (f"take the blanks out around the =: {fixed}",
                                    f"= 앞뒤의 공백을 지워 이렇게 적으세요: {fixed}")


@pytest.mark.parametrize("written", [
    "DEFAULT=runc \nWHY=runtimeclass\n",     # a blank at the end of a line is not one around its =
    " DEFAULT=runc\nWHY=runtimeclass\n",     # nor one at its start
    "DEFAULT = nvidia\nWHY=runtimeclass\n",  # blanks, and a wrong value too: the value is the mistake to say
    "DEFAULT = runc\nWHY=other\n",           # one line spaced, another wrong: said line by line, by their rules
])
def test_other_differences_are_not_taken_for_blanks_around_the_equals_sign(tmp_path, written):
    root = lab_root(tmp_path)
    (root / TOOLKIT / "default.txt").write_text(written)
    assert _only_finding(check(root), 4).code == "file.differs"


@pytest.mark.parametrize("written, line, en, ko, fix", [
    # two wrong lines: each named with its number, what it holds and what it must hold, one after the other
    ("DEFAULT=nvidia\nWHY=other\n", 1,
     "line 1 DEFAULT=nvidia → DEFAULT=runc; line 2 WHY=other → WHY=runtimeclass",
     "1번째 줄 DEFAULT=nvidia → DEFAULT=runc; 2번째 줄 WHY=other → WHY=runtimeclass",
     "line 1: DEFAULT must be the default_runtime_name containerd reads from your config; line 2: WHY must be runtimeclass"),
    # a line too many whose value is wrong too: line by line, the last to delete
    ("DEFAULT=nvidia\nWHY=runtimeclass\nEXTRA=1\n", 1, "line 1 DEFAULT=nvidia → DEFAULT=runc; line 3 EXTRA=1 → (delete)",
     "1번째 줄 DEFAULT=nvidia → DEFAULT=runc; 3번째 줄 EXTRA=1 → (지울 줄)", "delete line 3"),
    # a line too few behind a wrong one: line by line, the last said missing
    ("DEFAULT=nvidia\n", 1, "line 1 DEFAULT=nvidia → DEFAULT=runc; line 2 (missing) → WHY=runtimeclass",
     "1번째 줄 DEFAULT=nvidia → DEFAULT=runc; 2번째 줄 (없음) → WHY=runtimeclass",
     "by its rule: line 1: DEFAULT must be the default_runtime_name containerd reads from your config; line 2: WHY must be"),
    # a wrong value in a \r\n file: the line as the student sees it, without the carriage return
    ("DEFAULT=nvidia\r\nWHY=runtimeclass\r\n", 1, "line 1 DEFAULT=nvidia → DEFAULT=runc;",
     "1번째 줄 DEFAULT=nvidia → DEFAULT=runc;", "by its rule: line 1: DEFAULT must be the default_runtime_name"),
])
def test_a_file_that_differs_names_every_wrong_line_and_each_ones_rule(tmp_path, written, line, en, ko, fix):
    root = lab_root(tmp_path)
    (root / TOOLKIT / "default.txt").write_bytes(written.encode())
    p = _only_finding(check(root), 4)
    assert p.code == "file.differs", p
    assert p.line == line
    assert en in p.what.en and ko in p.what.ko, p.what
    assert "\r" not in p.what.en + p.what.ko
    _names_the_file_and_the_fix(p, DEFAULT, DEFAULT_SHOWN, fix)


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


def test_a_report_that_says_what_a_broken_option_gives_keeps_its_point(tmp_path):
    """SystemdCgroup = false for nvidia fails step 3; a report.txt that reports that false is right for the
    config as it is: step 8 passes (issue 51: one mistake costs one step), with a warning that it changes once
    step 3 is fixed. A report that says neither is step 8's own failure, its fix the corrected lines."""
    import tomlkit

    from grading_helpers import CONFIG

    root = lab_root(tmp_path)
    doc = tomlkit.parse((root / CONFIG).read_text())
    doc["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]["nvidia"]["options"]["SystemdCgroup"] = False
    (root / CONFIG).write_text(tomlkit.dumps(doc))
    report = root / TOOLKIT / "report.txt"
    right = report.read_text()
    report.write_text(right.replace("SYSTEMD_CGROUP=true", "SYSTEMD_CGROUP=false"))
    results = check(root)
    assert results[3].failed
    assert results[8].status == "passed", results[8].text()
    (p,) = results[8].problems
    assert (p.code, p.values["step"], p.is_error) == ("file.faithful_to_earlier_step", 3, False)

    report.write_text(right.replace("SYSTEMD_CGROUP=true", "SYSTEMD_CGROUP=yes"))
    (p,) = check(root)[8].problems
    assert p.code == "file.differs" and p.values["expected"] == right.strip().replace("\n", " / ")


def test_a_runtime_with_another_binary_and_no_runtime_type_in_a_lab_is_the_students_to_fix(tmp_path):
    """The GPU Operator's binary under the nvidia runtime, without a runtime_type, in a lab root: the student's own
    mistakes (another owner's runtime exists only on a node: tests/steps/test_runtime.py), so the plan knows every
    value of the report, and a missing report.txt is told the lines it holds once steps 2 and 3 are fixed."""
    from grading_helpers import GOOD

    theirs = GOOD.read_text().replace('runtimes.nvidia]\n          runtime_type = "io.containerd.runc.v2"\n',
                                      'runtimes.nvidia]\n').replace(
        'BinaryName = "/usr/bin/nvidia-container-runtime"',
        'BinaryName = "/usr/local/nvidia/toolkit/nvidia-container-runtime"')
    root = lab_root(tmp_path, theirs.encode())
    (root / TOOLKIT / "report.txt").unlink()
    results = check(root)
    assert [p.code for p in results[2].problems] == ["runtime.type_missing"]
    assert [p.code for p in results[3].problems] == ["options.binary_name.wrong"]
    (p,) = results[8].problems
    # the fix: every line's rule (issue 51), the line the corrected config gives kept as the finding's value
    assert p.code == "file.missing" and "RUNTIME_TYPE=io.containerd.runc.v2" in p.values["expected"], p.values
    assert "RUNTIME_TYPE=<the runtime_type parsed from your config" in p.fix.en, p.fix.en


# --- the words of a file's findings: the file by its path, the step that blocks it -------------------------------

def test_a_right_file_behind_a_failed_step_passes_on_the_corrected_input(tmp_path):
    """parsed.txt as it should be, while step 3 failed: judged against the corrected input it is right, so it
    passes (issue 41: it was blocked, and lost its point, for step 3's mistake)."""
    import tomlkit

    from grading_helpers import CONFIG

    root = lab_root(tmp_path)
    doc = tomlkit.parse((root / CONFIG).read_text())
    doc["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]["nvidia"]["options"]["SystemdCgroup"] = False
    (root / CONFIG).write_text(tomlkit.dumps(doc))
    results = check(root)
    assert results[3].failed
    assert results[5].status == "passed" and results[5].problems == [], results[5].text()


def test_a_missing_file_behind_a_failed_step_is_told_to_wait_for_that_step(tmp_path):
    from grading_helpers import GOOD

    theirs = GOOD.read_text().replace('runtimes.nvidia]\n          runtime_type = "io.containerd.runc.v2"\n',
                                      'runtimes.nvidia]\n')
    root = lab_root(tmp_path, theirs.encode())  # step 2 fails: no runtime_type
    (root / TOOLKIT / "report.txt").unlink()
    (p,) = check(root)[8].problems
    lab = f"/{TOOLKIT}/report.txt"
    assert (p.code, p.path) == ("file.missing", lab)  # the fixed config gives every line: they are shown
    assert p.what.en == f"{lab} is missing."
    assert p.fix.en.startswith("create it, one line each, every value read from your own files: CONFIG_VERSION=<")
    assert "io.containerd.runc.v2" not in p.fix.en  # the rule to apply, not the answer (issue 51)


@pytest.mark.parametrize("text, shown", [
    ("CONFIG_VERSION=2\nRUNTIME=nvidia\n", True),
    ("RUNTIME_TYPE=\n", False),                 # a value broken inputs leave unknown
    ('SYSTEMD_CGROUP="true"\n', False),         # a string where TOML has a boolean
    ("HANDLER='nvidia'\n", False),
    ("HANDLER=Xnvidia\n", True),                # only a quote at the start makes a value a broken one
    ("HANDLER=gpu=\n", True),                   # the value is what follows the first '='
    ("no equals sign at all\n", True),
    ("", True),
])
def test_the_lines_a_fix_may_show_have_every_value_known_and_unquoted(text, shown):
    from runbook_lib.steps.lines import derivable

    assert derivable(text) is shown


# --- report.txt: the values of the runtime the RuntimeClass's handler names, read back from the config ----------

NVIDIA_TABLE = ('        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n'
                '          runtime_type = "io.containerd.runc.v2"\n\n'
                '          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]\n'
                '            BinaryName = "/usr/bin/nvidia-container-runtime"\n'
                '            SystemdCgroup = true\n')
RC = "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: nvidia\n"


def _report_of(tmp_path, config: str, runtimeclass: str | None) -> str:
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run
    from runbook_lib.steps.report import report

    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / "etc/containerd/config.toml").write_text(config)
    (root / TOOLKIT).mkdir(parents=True)
    if runtimeclass is not None:
        (root / TOOLKIT / "runtimeclass.yaml").write_text(runtimeclass)
    rb = Run(validate(root=str(root), mode="check")).start()
    try:
        return report(rb)
    finally:
        rb.finish()


def _good(old: str = "", new: str = "") -> str:
    from grading_helpers import GOOD

    text = GOOD.read_text()
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize("config, runtimeclass, lines", [
    (_good(), RC + "handler: nvidia\n", ["2", "nvidia", "io.containerd.runc.v2", "true", "nvidia"]),
    # the handler names another runtime of the config: its values, not nvidia's
    (_good("SystemdCgroup = true", "SystemdCgroup = false"), RC + "handler: runc\n",
     ["2", "runc", "io.containerd.runc.v2", "false", "runc"]),
    # a handler naming no runtime: nvidia's values, and the handler as written
    (_good(), RC + "handler: ghost\n", ["2", "nvidia", "io.containerd.runc.v2", "true", "ghost"]),
    # no handler, or no RuntimeClass at all: nvidia's values, no handler
    (_good(), RC, ["2", "nvidia", "io.containerd.runc.v2", "true", ""]),
    (_good(), None, ["2", "nvidia", "io.containerd.runc.v2", "true", ""]),
    # no nvidia table: nothing to report of it
    (_good(NVIDIA_TABLE), RC + "handler: nvidia\n", ["2", "", "", "", "nvidia"]),
    # options that are not a table, a runtime that is not a table
    (_good(NVIDIA_TABLE, NVIDIA_TABLE.split("\n\n")[0] + '\n          options = "x"\n'), RC + "handler: nvidia\n",
     ["2", "nvidia", "io.containerd.runc.v2", "", "nvidia"]),
    (_good(NVIDIA_TABLE, '        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]\n'
                         '          nvidia = "x"\n').replace(
        '      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]\n\n', "", 1),
     RC + "handler: nvidia\n", ["2", "nvidia", "", "", "nvidia"]),
    # an empty string where a value goes: shown as TOML writes it, not as nothing
    (_good('runtime_type = "io.containerd.runc.v2"\n\n          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]',
           'runtime_type = ""\n\n          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]'),
     RC + "handler: nvidia\n", ["2", "nvidia", '""', "true", "nvidia"]),
    # a version-3 file (containerd 2.x): its own version and path
    ('version = 3\n[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia]\n'
     '  runtime_type = "io.containerd.runc.v2"\n'
     '  [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia.options]\n'
     '    SystemdCgroup = true\n', RC + "handler: nvidia\n", ["3", "nvidia", "io.containerd.runc.v2", "true", "nvidia"]),
])
def test_the_report_says_the_values_of_the_runtime_the_handler_names(tmp_path, config, runtimeclass, lines):
    keys = ("CONFIG_VERSION", "RUNTIME", "RUNTIME_TYPE", "SYSTEMD_CGROUP", "HANDLER")
    assert _report_of(tmp_path, config, runtimeclass) == "".join(f"{k}={v}\n" for k, v in zip(keys, lines))


def test_a_report_without_a_handler_when_there_is_no_runtimeclass_keeps_its_point(tmp_path):
    """No RuntimeClass (step 7 fails), and report.txt says HANDLER= as that gives: faithful to the student's
    files, so step 8 passes with a warning naming step 7 (issue 51), never blocked at 0."""
    root = lab_root(tmp_path)
    (root / TOOLKIT / "runtimeclass.yaml").unlink()
    report = root / TOOLKIT / "report.txt"
    report.write_text(report.read_text().replace("HANDLER=nvidia", "HANDLER="))
    results = check(root)
    assert [p.code for p in results[7].problems] == ["runtimeclass.missing"]
    assert results[8].status == "passed", results[8].text()
    assert [(p.code, p.values["step"]) for p in results[8].problems] == [("file.faithful_to_earlier_step", 7)]


def test_a_file_may_lack_its_final_newline_and_an_empty_file_has_no_lines():
    from runbook_lib.steps.lines import EXACT, canonical, same

    assert canonical(EXACT, "DEFAULT=runc\nWHY=runtimeclass") == ["DEFAULT=runc", "WHY=runtimeclass"]
    assert same(EXACT, "DEFAULT=runc\nWHY=runtimeclass", "DEFAULT=runc\nWHY=runtimeclass\n")
    assert canonical(EXACT, "") == []


def test_an_empty_toolkit_file_is_told_every_line_it_lacks(tmp_path):
    root = lab_root(tmp_path)
    (root / TOOLKIT / "default.txt").write_text("")
    (p,) = check(root)[4].problems
    assert (p.code, p.values["lines"].en) == (
        "file.differs", "line 1 (missing) → DEFAULT=runc; line 2 (missing) → WHY=runtimeclass")


def test_the_report_check_run_again_after_a_runtimeclass_is_written_by_hand_names_that_files_yaml_error(tmp_path):
    """A folder stood where runtimeclass.yaml should be when step 8 was planned; the student puts a file there by
    hand, with a YAML slip, and runs step 8's check cell again: the report is derived from that RuntimeClass, so
    the finding is its YAML error, at its own file and line."""
    from grading_helpers import a_folder_in_its_place, check_cell_run_twice, written_by_hand

    root = lab_root(tmp_path)
    rc = root / TOOLKIT / "runtimeclass.yaml"
    first, again = check_cell_run_twice(root, "report", written_by_hand(a_folder_in_its_place(rc),
                                                                        "apiVersion: node.k8s.io/v1\nkind: [RuntimeClass\n"))
    assert first == ["write.failed.folder_stands_where_file"]
    p = _only_finding({8: again}, 8)
    assert (p.code, p.path, p.line) == ("config.unreadable.yaml_syntax", "/root/toolkit/runtimeclass.yaml", 3)


@pytest.mark.parametrize("written, faithful", [
    # each reading of the student's own files the lab's words allow, with a handler that names no runtime
    ("CONFIG_VERSION=2\nRUNTIME=nvidia\nRUNTIME_TYPE=io.containerd.runc.v2\nSYSTEMD_CGROUP=true\nHANDLER=nvidai\n", True),
    ("CONFIG_VERSION=2\nRUNTIME=nvidai\nRUNTIME_TYPE=\nSYSTEMD_CGROUP=\nHANDLER=nvidai\n", True),
    ("CONFIG_VERSION=2\nRUNTIME=\nRUNTIME_TYPE=\nSYSTEMD_CGROUP=\nHANDLER=nvidai\n", True),
    # the handler's name with the runtime's values: no reading gives that
    ("CONFIG_VERSION=2\nRUNTIME=nvidai\nRUNTIME_TYPE=io.containerd.runc.v2\nSYSTEMD_CGROUP=true\nHANDLER=nvidai\n",
     False),
])
def test_a_report_of_a_handler_that_names_no_runtime_is_faithful_as_each_reading_gives_it(tmp_path, written,
                                                                                            faithful):
    root = lab_root(tmp_path)
    rc = root / TOOLKIT / "runtimeclass.yaml"
    rc.write_text(rc.read_text().replace("handler: nvidia", "handler: nvidai"))
    (root / TOOLKIT / "report.txt").write_text(written)
    results = check(root)
    assert [p.code for p in results[7].problems] == ["runtimeclass.handler_not_a_runtime"]
    if faithful:
        assert results[8].status == "passed", results[8].text()
        assert [(p.code, p.values["step"]) for p in results[8].problems] == [("file.faithful_to_earlier_step", 7)]
    else:
        assert [p.code for p in results[8].problems] == ["file.differs"], results[8].text()


def test_a_report_of_options_without_systemdcgroup_says_false_as_containerd_reads_it(tmp_path):
    """SystemdCgroup left out of the runtime's options (step 3 fails: the lab wants true): containerd reads false,
    its zero value, so a report saying false is faithful to the student's files; one saying nothing is not."""
    from grading_helpers import CONFIG

    root = lab_root(tmp_path)
    config = root / CONFIG
    text = config.read_text()
    nvidia = text.index("runtimes.nvidia.options]")
    config.write_text(text[:nvidia] + text[nvidia:].replace("SystemdCgroup = true\n", "", 1))
    report = root / TOOLKIT / "report.txt"
    report.write_text(report.read_text().replace("SYSTEMD_CGROUP=true", "SYSTEMD_CGROUP=false"))
    results = check(root)
    assert results[3].failed
    assert [(p.code, p.values["step"]) for p in results[8].problems] == [("file.faithful_to_earlier_step", 3)]
    report.write_text(report.read_text().replace("SYSTEMD_CGROUP=false", "SYSTEMD_CGROUP="))
    assert [p.code for p in check(root)[8].problems] == ["file.differs"]


@pytest.mark.parametrize("handler_line, written", [
    # print(f"RUNTIME={rc.get('handler')}") with no handler: Python's None is no reading of the files
    (None, "CONFIG_VERSION=2\nRUNTIME=None\nRUNTIME_TYPE=\nSYSTEMD_CGROUP=\nHANDLER=\n"),
    (None, "CONFIG_VERSION=2\nRUNTIME=XXXX\nRUNTIME_TYPE=\nSYSTEMD_CGROUP=\nHANDLER=\n"),
    # handler: true (YAML's boolean): no runtime's name either
    ("handler: true", "CONFIG_VERSION=2\nRUNTIME=True\nRUNTIME_TYPE=\nSYSTEMD_CGROUP=\nHANDLER=true\n"),
])
def test_a_report_naming_a_runtime_no_file_gives_is_not_faithful(tmp_path, handler_line, written):
    root = lab_root(tmp_path)
    rc = root / TOOLKIT / "runtimeclass.yaml"
    rc.write_text(rc.read_text().replace("handler: nvidia", handler_line) if handler_line else "")
    if handler_line is None:
        rc.unlink()
    (root / TOOLKIT / "report.txt").write_text(written)
    results = check(root)
    assert results[7].failed
    assert [p.code for p in results[8].problems] == ["file.differs"], results[8].text()


@pytest.mark.parametrize("written", [
    "CONFIG_VERSION=2\nRUNTIME=nvidia\nRUNTIME_TYPE=\nSYSTEMD_CGROUP=\nHANDLER=nvidia\n",
    "CONFIG_VERSION=2\nRUNTIME=\nRUNTIME_TYPE=\nSYSTEMD_CGROUP=\nHANDLER=nvidia\n",
])
def test_a_report_without_the_values_of_the_runtime_its_handler_names_is_not_faithful(tmp_path, written):
    """Step 3 failed (SystemdCgroup false), the handler names a runtime of the config: the report must say that
    runtime's values as the files hold them; the values left out is no reading of them."""
    import tomlkit

    from grading_helpers import CONFIG

    root = lab_root(tmp_path)
    doc = tomlkit.parse((root / CONFIG).read_text())
    doc["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]["nvidia"]["options"]["SystemdCgroup"] = False
    (root / CONFIG).write_text(tomlkit.dumps(doc))
    (root / TOOLKIT / "report.txt").write_text(written)
    results = check(root)
    assert results[3].failed
    assert [p.code for p in results[8].problems] == ["file.differs"], results[8].text()


@pytest.mark.parametrize("written, slips_en, slips_ko, lines_en", [
    # a shell's habits: export, quotes
    ("export DEFAULT=runc\nexport WHY=runtimeclass\n", "an export before the line", "줄 앞의 export",
     "line 1 export DEFAULT=runc → DEFAULT=runc; line 2 export WHY=runtimeclass → WHY=runtimeclass"),
    ('DEFAULT="runc"\nWHY=runtimeclass\n', "quotes around the value", "값을 감싼 따옴표",
     'line 1 DEFAULT="runc" → DEFAULT=runc'),
    ("DEFAULT=runc\nWHY='runtimeclass'\n", "quotes around the value", "값을 감싼 따옴표",
     "line 2 WHY='runtimeclass' → WHY=runtimeclass"),
    # YAML's habit, and a name in lower case
    ("DEFAULT: runc\nWHY: runtimeclass\n", "a colon for the =", "= 대신 콜론",
     "line 1 DEFAULT: runc → DEFAULT=runc; line 2 WHY: runtimeclass → WHY=runtimeclass"),
    ("default=runc\nWHY=runtimeclass\n", "the name in lower case", "소문자로 쓴 이름", "line 1 default=runc → DEFAULT=runc"),
])
def test_a_right_value_written_another_way_names_how_with_each_line_as_it_must_be(tmp_path, written, slips_en,
                                                                                 slips_ko, lines_en):
    """Not "disagrees with the config", which would send the student after a value that is right."""
    root = lab_root(tmp_path)
    (root / TOOLKIT / "default.txt").write_text(written)
    p = _only_finding(check(root), 4)
    assert p.code == "file.format_slips", p
    assert (p.path, p.values["expected"]) == (DEFAULT, DEFAULT_SHOWN)
    assert p.what.en == (f"{DEFAULT} has the right values, but its lines are not written as KEY=value ({slips_en}): "
                         f"{lines_en}")
    assert p.what.ko.startswith(f"{DEFAULT} 의 값은 맞지만, 줄이 KEY=값 그대로 적혀 있지 않습니다 ({slips_ko}): ")
    fixed = "; ".join(line.rpartition(" → ")[2] for line in lines_en.split("; "))
    assert (p.fix.en, p.fix.ko) == (f"write them as: {fixed}", f"이렇게 적으세요: {fixed}")
    assert p.line == int(lines_en.split()[1])


def test_every_slip_on_one_line_is_named_once_in_the_order_they_are_undone(tmp_path):
    root = lab_root(tmp_path)
    (root / TOOLKIT / "default.txt").write_text('DEFAULT=runc\nexport why = "runtimeclass"\n')
    p = _only_finding(check(root), 4)
    assert p.code == "file.format_slips", p
    assert (p.path, p.values["expected"]) == (DEFAULT, DEFAULT_SHOWN)
    assert p.what.en == (f"{DEFAULT} has the right values, but its lines are not written as KEY=value (an export "
                         "before the line, blanks around the =, quotes around the value, the name in lower case): "
                         'line 2 export why = "runtimeclass" → WHY=runtimeclass')
    assert p.line == 2


def test_a_list_value_in_quotes_is_a_slip_whatever_the_order_of_its_names(tmp_path):
    """parsed.txt's RUNTIMES may list its names in any order (steps/lines.py): quoted, the quotes are the slip."""
    root = lab_root(tmp_path)
    parsed = root / TOOLKIT / "parsed.txt"
    parsed.write_text(parsed.read_text().replace("RUNTIMES=runc,nvidia", 'RUNTIMES="nvidia, runc"'))
    p = _only_finding(check(root), 5)
    assert p.code == "file.format_slips", p
    assert '(quotes around the value): line 2 RUNTIMES="nvidia, runc" → RUNTIMES=runc,nvidia' in p.what.en


@pytest.mark.parametrize("written", [
    'DEFAULT="nvidia"\nWHY=runtimeclass\n',    # quoted, and the value is wrong: the value is what to fix
    "export DEFAULT=runc\n",                   # a line missing
    "DEFAULT=nvidia\nWHY=runtimeclass\nexport X=1\n",  # a line too many, and a wrong value
    "DEFAULT=runc\nWHY=runtimeclass # why\n",  # a comment after the value is not one of the slips
    'export why = "runtimeclass"\nDEFAULT=runc\n',  # slips, and the lines in the wrong order: line by line
])
def test_a_wrong_missing_or_extra_line_is_not_taken_for_a_slip(tmp_path, written):
    root = lab_root(tmp_path)
    (root / TOOLKIT / "default.txt").write_text(written)
    assert _only_finding(check(root), 4).code == "file.differs"


# --- lines of the student's own among the lab's: named as lines to delete, never every line after them as wrong

@pytest.mark.parametrize("name, step, written, lines_en, lines_ko, deletes", [
    ("report.txt", 8, "# values read back\nCONFIG_VERSION=2\nRUNTIME=nvidia\nRUNTIME_TYPE=io.containerd.runc.v2\n"
     "SYSTEMD_CGROUP=true\nHANDLER=nvidia\n", "line 1 # values read back → (delete)",
     "1번째 줄 # values read back → (지울 줄)", "delete line 1"),
    ("default.txt", 4, "DEFAULT=runc\nWHY=runtimeclass\n\n", "line 3 (a blank line) → (delete)",
     "3번째 줄 (빈 줄) → (지울 줄)", "delete line 3"),
    ("default.txt", 4, "DEFAULT=runc\nEXTRA=1\nWHY=runtimeclass\nMORE=2\n",
     "line 2 EXTRA=1 → (delete); line 4 MORE=2 → (delete)", "2번째 줄 EXTRA=1 → (지울 줄); 4번째 줄 MORE=2 → (지울 줄)",
     "delete line 2; delete line 4"),
    ("cdi-keys.txt", 6, "kind\n# the spec's keys\ncontainerEdits\ncdiVersion\ndevices\n", "line 2 # the spec's keys → (delete)",
     "2번째 줄 # the spec's keys → (지울 줄)", "delete line 2"),  # a file of names in any order
])
def test_a_line_of_the_students_own_is_named_as_one_to_delete(tmp_path, name, step, written, lines_en, lines_ko, deletes):
    root = lab_root(tmp_path)
    (root / TOOLKIT / name).write_text(written)
    p = _only_finding(check(root), step)
    assert (p.code, p.line) == ("file.extra_lines", int(lines_en.split()[1]))
    assert lines_en in p.what.en and lines_ko in p.what.ko, p.what
    assert "every line the lab asks for is there and right" in p.what.en
    assert (p.fix.en, p.fix.ko) == (deletes, deletes.replace("delete line ", "").replace("; ", "번째 줄은 지우세요; ") + "번째 줄은 지우세요")


@pytest.mark.parametrize("name, step, written, lines_en, lines_ko, fix", [
    ("report.txt", 8, "CONFIG_VERSION=2\nRUNTIME_TYPE=io.containerd.runc.v2\nSYSTEMD_CGROUP=true\nHANDLER=nvidia\n",
     "line 2 (missing) → RUNTIME=nvidia", "2번째 줄 (없음) → RUNTIME=nvidia",
     "add each missing line in its place: line 2: RUNTIME must be the name of the runtime"),
    ("default.txt", 4, "DEFAULT=runc\n", "line 2 (missing) → WHY=runtimeclass", "2번째 줄 (없음) → WHY=runtimeclass",
     "add each missing line in its place: line 2: WHY must be runtimeclass"),
    ("cdi-keys.txt", 6, "devices\ncdiVersion\n", "line 2 (missing) → kind; line 4 (missing) → containerEdits",
     "2번째 줄 (없음) → kind; 4번째 줄 (없음) → containerEdits", "add each missing line in its place: "),
])
def test_a_line_left_out_is_named_as_missing_not_every_line_after_it(tmp_path, name, step, written, lines_en, lines_ko,
                                                                     fix):
    root = lab_root(tmp_path)
    (root / TOOLKIT / name).write_text(written)
    p = _only_finding(check(root), step)
    assert (p.code, p.line) == ("file.missing_lines", int(lines_en.split()[1]))
    assert lines_en in p.what.en and lines_ko in p.what.ko, p.what
    assert "every line it holds is right" in p.what.en and "있는 줄은 모두 맞습니다" in p.what.ko
    assert p.fix.en.startswith(fix), p.fix.en


def test_a_blank_line_compared_line_by_line_is_named_as_one(tmp_path):
    root = lab_root(tmp_path)
    (root / TOOLKIT / "default.txt").write_text("DEFAULT=nvidia\n\nWHY=runtimeclass\n")  # a wrong value as well
    p = _only_finding(check(root), 4)
    assert p.code == "file.differs"
    assert "line 2 (a blank line) → WHY=runtimeclass" in p.what.en and "2번째 줄 (빈 줄) → WHY=runtimeclass" in p.what.ko
