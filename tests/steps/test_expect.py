"""Every assertion a check cell makes, given a value of every TOML type (issue 25: with `expect.boolean`
comparing by `==`, `SystemdCgroup = 1` showed a ✓ while the step's verdict failed it).

An assertion holds only for the one value of the one type it names: 1 is not true, 1.0 is not 1, "true" is not
true, [true] is not true. tests/engine/test_check_cells.py runs the notebook's own check cells
on configs holding each of these values."""

from __future__ import annotations

import tomllib

import pytest

from runbook_lib.steps.expect import MISSING, Expect

# one value of every type TOML has, as tomllib reads it (a key with each)
VALUES = tomllib.loads('''
boolean_true = true
boolean_false = false
integer_one = 1
integer_zero = 0
float_one = 1.0
string_true = "true"
string_runc = "runc"
string_nvidia = "nvidia"
offset_datetime = 1979-05-27T07:32:00Z
local_datetime = 1979-05-27T07:32:00
local_date = 1979-05-27
local_time = 07:32:00
array = [true]
inline_table = { nvidia = true }
''')


def _same(a, b) -> bool:
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("expected", [True, False])
@pytest.mark.parametrize("name", sorted(VALUES) + ["(missing)"])
def test_boolean_holds_only_for_that_boolean(name, expected):
    """A boolean as containerd reads it: a key left out is its zero value, false (issue 51); any other value
    holds only when it is that very boolean."""
    table = {"k": VALUES[name]} if name in VALUES else {}
    checks = Expect()
    read = table.get("k", False)
    assert checks.boolean(table, "k", expected) is _same(read, expected), name
    assert checks.checks[0].ok is _same(read, expected)


@pytest.mark.parametrize("expected", [True, 1, 1.0, "true", "runc", [True]])
@pytest.mark.parametrize("name", sorted(VALUES) + ["(missing)"])
def test_equal_holds_only_for_that_value_of_that_type(name, expected):
    table = {"k": VALUES[name]} if name in VALUES else {}
    assert Expect().equal(table, "k", expected) is _same(table.get("k", MISSING), expected), name


@pytest.mark.parametrize("unwanted", ["nvidia", True, 1])
@pytest.mark.parametrize("name", sorted(VALUES) + ["(missing)"])
def test_not_equal_fails_only_for_that_value_of_that_type(name, unwanted):
    table = {"k": VALUES[name]} if name in VALUES else {}
    assert Expect().not_equal(table, "k", unwanted) is not _same(table.get("k", MISSING), unwanted), name


def test_a_nested_key_and_a_missing_part_of_it():
    table = {"options": {"SystemdCgroup": True}, "flat": 1}
    checks = Expect()
    assert checks.boolean(table, "options.SystemdCgroup", True) is True
    assert checks.boolean(table, "options.Nothing", True) is False
    assert checks.boolean(table, "flat.deeper", True) is False  # a value where a table should be
    assert [c.actual for c in checks.checks] == ["true", "(없음 / missing)", "(없음 / missing)"]
    assert checks.text().splitlines() == ["  ✓ options.SystemdCgroup is true (boolean)",
                                          "  ✗ options.Nothing is true (boolean)   ← (없음 / missing)",
                                          "  ✗ flat.deeper is true (boolean)   ← (없음 / missing)"]
    assert [c.text for c in checks.failed()] == ["options.Nothing is true (boolean)", "flat.deeper is true (boolean)"]


def test_what_each_assertion_records():
    """The text a check cell shows for each assertion, the value read and the value wanted, as TOML writes them."""
    import datetime as dt

    table = {"s": "true", "b": True, "n": 1, "when": dt.date(2001, 12, 14)}
    checks = Expect(path="/etc/containerd/config.toml")
    checks.equal(table, "s", "x")
    checks.boolean(table, "b", False)
    checks.not_equal(table, "n", 1)
    checks.true("", "the config exists and is not empty")
    checks.true("text", "held", key="k")
    checks.equal(table, "when", "x")
    assert [(c.text, c.ok, c.key, c.actual, c.expected) for c in checks.checks] == [
        ('s == "x"', False, "s", '"true"', '"x"'),
        ("b is false (boolean)", False, "b", "true", "false"),
        ("n != 1", False, "n", "1", ""),
        ("the config exists and is not empty", False, "", "false", ""),  # no key: the sentence is not a key
        ("held", True, "k", "false", ""),
        ('when == "x"', False, "when", "2001-12-14", '"x"'),
    ]


def test_an_assertion_named_by_a_catalog_code_reads_as_its_sentence_with_its_values():
    """expect.true's text: a catalog code is said in both languages, its placeholders filled from the values given;
    any other text is the assertion as written (an expression that happens to look like a code included)."""
    from runbook_lib.findings.messages import Msg

    checks = Expect()
    checks.true(True, "expect.toolkit_dir_exists")
    checks.true(False, "class_view.all_students_passed", n=2)
    checks.true(True, "expect.no_such_code")
    assert [(c.text, c.ok) for c in checks.checks] == [
        (Msg("toolkit_dir 폴더가 있다", "toolkit_dir exists"), True),
        (Msg("학생 2명 모두 통과했습니다.", "all 2 students passed."), False),
        ("expect.no_such_code", True),
    ]
    assert checks.text().splitlines() == ["  ✓ toolkit_dir 폴더가 있다 / toolkit_dir exists",
                                          "  ✗ 학생 2명 모두 통과했습니다. / all 2 students passed.   ← false",
                                          "  ✓ expect.no_such_code"]  # the cell's output: a sentence in both languages


def test_a_failed_assertion_is_a_finding_only_when_the_verdict_found_nothing():
    from runbook_lib.findings.problem import Problem

    checks = Expect(path="/etc/containerd/config.toml")
    checks.boolean({"k": 1}, "options.SystemdCgroup", True)
    checks.boolean({"options": {"SystemdCgroup": True}}, "options.SystemdCgroup", True)
    (added,) = checks.uncovered([])
    assert (added.code, added.path, added.is_error) == ("expect.failed", "/etc/containerd/config.toml", True)
    assert added.what.en == "the check failed: options.SystemdCgroup is true (boolean) (read: (없음 / missing))"
    assert added.fix.en == "make options.SystemdCgroup satisfy the check above."
    verdict = Problem.of("options.systemd_cgroup.wrong", "/etc/containerd/config.toml", 35, expected="true",
                         actual="1", header="h", runtime="nvidia")
    assert checks.uncovered([verdict]) == []
    warning = Problem.of("cdi.version_newer", "/etc/cdi/nvidia.yaml", severity="warning", version="9.9.9",
                         supported="0.5.0", spec="/etc/cdi/nvidia.yaml")
    assert [p.code for p in checks.uncovered([warning])] == ["expect.failed"]  # a warning explains no failure


def test_a_failed_assertion_without_a_key_asks_for_the_assertion_to_hold():
    checks = Expect(path="/etc/containerd/config.toml")
    checks.true("", "expect.config_not_empty")
    (added,) = checks.uncovered([])
    assert (added.code, added.path) == ("expect.failed.condition", "/etc/containerd/config.toml")
    assert added.fix.en == "make this check hold: the config exists and is not empty"


def test_a_toolkit_file_check_records_the_file_as_read(tmp_path):
    """expect.file on a finished lab: the file as planned, missing, different, a folder in its place, and a step
    with no plan (nothing planned: the file must be empty)."""
    import shutil

    from grading_helpers import TOOLKIT, lab_root
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run

    root = lab_root(tmp_path)
    lab = f"/{TOOLKIT}/default.txt"

    def check(step="default"):
        rb = Run(validate(root=str(root), mode="check")).start()
        try:
            rb.preflight()
            checks = Expect(rb, step)
            checks.file(lab)
            return [(c.text, c.ok, c.key, c.actual, c.expected) for c in checks.checks]
        finally:
            rb.finish()

    said = f"{lab} == DEFAULT=runc / WHY=runtimeclass"
    assert check() == [(said, True, lab, "DEFAULT=runc / WHY=runtimeclass", "")]
    (root / lab[1:]).write_text("DEFAULT=nvidia\nWHY=x\n")
    assert check() == [(said, False, lab, "DEFAULT=nvidia / WHY=x", "")]
    (root / lab[1:]).unlink()
    assert check() == [(said, False, lab, "(없음 / missing)", "")]
    assert check("no-such-step") == [(f"{lab} == ", False, lab, "(없음 / missing)", "")]
    (root / lab[1:]).mkdir()
    ((text, ok, key, actual, expected),) = check()
    assert (text, ok, key, expected) == (f"{lab} == ", False, lab, "")  # a folder there: nothing can be planned
    assert "folder" in actual and "폴더" in actual and " / " in actual
    shutil.rmtree(root / lab[1:])


def test_a_lab_line_holds_a_list_in_any_order_and_a_boolean_as_toml_writes_it(tmp_path):
    """expect.line: a list is its names joined by commas, in any order (the step's rule for RUNTIMES); any other
    value is compared exactly, so "a,b" is not "b,a"; a boolean is TOML's true/false, never Python's True. What it
    read is shown as the line, or why there is none: no such line, no file, a folder where the file should be."""
    import shutil

    from grading_helpers import TOOLKIT, lab_root
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run

    root = lab_root(tmp_path)
    lab = f"/{TOOLKIT}/parsed.txt"

    def check(*lines):
        rb = Run(validate(root=str(root), mode="check")).start()
        try:
            checks = Expect(rb, "parse")
            for key, expected in lines:
                checks.line(lab, key, expected)
        finally:
            rb.finish()
        return [(c.text, c.ok, c.key, c.actual, c.expected) for c in checks.checks]

    (root / lab[1:]).write_text("RUNTIMES=nvidia,runc\nPAIR=nvidia,runc\nCDI=true\nFLAGS=false,true\nPY=True\n")
    assert check(("RUNTIMES", ["runc", "nvidia"]), ("PAIR", "runc,nvidia"), ("CDI", True), ("FLAGS", (True, False)),
                 ("PY", True), ("VERSION", 2)) == [
        ("parsed.txt: RUNTIMES=runc,nvidia (순서 무관 / any order)", True, f"{lab}:RUNTIMES", "RUNTIMES=nvidia,runc", ""),
        ("parsed.txt: PAIR=runc,nvidia", False, f"{lab}:PAIR", "PAIR=nvidia,runc", ""),
        ("parsed.txt: CDI=true", True, f"{lab}:CDI", "CDI=true", ""),
        ("parsed.txt: FLAGS=true,false (순서 무관 / any order)", True, f"{lab}:FLAGS", "FLAGS=false,true", ""),
        ("parsed.txt: PY=true", False, f"{lab}:PY", "PY=True", ""),
        ("parsed.txt: VERSION=2", False, f"{lab}:VERSION", "(no VERSION= line)", ""),
    ]
    (root / lab[1:]).unlink()
    assert check(("VERSION", 2)) == [("parsed.txt: VERSION=2", False, f"{lab}:VERSION", "(없음 / missing)", "")]
    (root / lab[1:]).mkdir()
    ((text, ok, key, actual, expected),) = check(("VERSION", 2))
    assert (text, ok, key, expected) == ("parsed.txt: VERSION=2", False, f"{lab}:VERSION", "")
    assert "folder" in actual and "폴더" in actual and " / " in actual  # the verdict's own finding, both languages
    shutil.rmtree(root / lab[1:])


def test_a_toolkit_file_of_names_in_any_order_says_so(tmp_path):
    """expect.file by the step's own rule: step 6's cdi-keys.txt is a list of names in any order, and its
    assertion says so; a student's keys in another order pass, as the verdict passes them."""
    from grading_helpers import TOOLKIT, lab_root
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run

    root = lab_root(tmp_path)
    lab = f"/{TOOLKIT}/cdi-keys.txt"
    (root / lab[1:]).write_text("containerEdits\ndevices\nkind\ncdiVersion\n")
    rb = Run(validate(root=str(root), mode="check")).start()
    try:
        rb.preflight()
        checks = Expect(rb, "cdi")
        checks.file(lab)
    finally:
        rb.finish()
    assert [(c.text, c.ok, c.actual) for c in checks.checks] == [
        (f"{lab} == cdiVersion / kind / devices / containerEdits (순서 무관 / any order)", True,
         "containerEdits / devices / kind / cdiVersion")]


def test_the_whole_table_and_a_value_toml_cannot_write():
    from runbook_lib.steps.expect import dig, shown
    import yaml

    table = {"a": 1}
    assert dig(table, "") is table  # no key: the table itself
    assert shown(yaml.safe_load("!!set {a}")) == "{'a'}"  # a YAML set, which TOML has no way to write: as text


def test_a_yaml_null_is_shown_as_the_file_spells_it():
    """`kind:` with nothing after it is YAML's null: a check cell shows `null`, never Python's `None`."""
    import yaml

    from runbook_lib.steps.expect import Expect

    e = Expect()
    assert e.equal(yaml.safe_load("kind:\n"), "kind", "RuntimeClass") is False
    assert e.checks[-1].actual == "null"
