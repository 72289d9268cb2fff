"""A command line argparse cannot take is refused in both languages, with what to give instead (cli/usage.py):
never argparse's English-only "error:" line, never a value in Python's quotes; exit 2, nothing run."""

from __future__ import annotations

import pytest

from runbook_lib.cli.main import main
from runbook_lib.cli.usage import usage_error


def refused(argv, capsys) -> list[str]:
    """The lines after the usage line, for a command line the parser refuses (exit 2, nothing on stdout)."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    assert (exc.value.code, out) == (2, "")
    assert err.startswith("usage: ")
    return [line for line in err.splitlines() if not line.startswith((" ", "usage: "))]


def test_a_missing_option_is_named_with_where_to_read_how(capsys):
    assert refused(["check", "/tmp/nowhere"], capsys) == [
        "runbook check: 빠진 인자가 있습니다: --step. 위의 사용법 줄처럼 함께 주세요 (설명: runbook check --help).",
        "runbook check: missing arguments: --step; give them as the usage line above shows "
        "(help: runbook check --help).",
    ]


def test_no_command_at_all_names_the_commands(capsys):
    assert refused([], capsys) == [
        "runbook: 빠진 인자가 있습니다: 명령 (run, grade, check, summary, lab-init 가운데 하나). 위의 사용법 줄처럼 "
        "함께 주세요 (설명: runbook --help).",
        "runbook: missing arguments: a command (one of run, grade, check, summary, lab-init); give them as the "
        "usage line above shows (help: runbook --help).",
    ]


def test_an_unknown_command_lists_the_commands(capsys):
    assert refused(["chek", "/tmp/nowhere"], capsys) == [
        "runbook: runbook 의 명령이 아닙니다: chek. 다음 가운데 하나를 주세요: run, grade, check, summary, lab-init "
        "(설명: runbook --help).",
        "runbook: not a command of runbook: chek; give one of: run, grade, check, summary, lab-init "
        "(help: runbook --help).",
    ]


def test_a_value_not_among_the_choices_lists_them_without_quotes(capsys):
    assert refused(["run", "--root", "/tmp/nowhere", "--mode", "aply"], capsys) == [
        "runbook run: --mode 의 값이 될 수 없습니다: aply. 다음 가운데 하나를 주세요: apply, check, remove.",
        "runbook run: not a value --mode takes: aply; give one of: apply, check, remove.",
    ]


def test_a_number_that_is_not_one(capsys):
    assert refused(["grade", "/tmp/nowhere", "--out", "/tmp/out", "--jobs", "two"], capsys) == [
        "runbook grade: --jobs 의 값은 정수여야 합니다: two. 숫자만 주세요 (예: --jobs 2).",
        "runbook grade: --jobs takes a whole number, not two; give digits only (e.g. --jobs 2).",
    ]


def test_an_option_without_its_value(capsys):
    assert refused(["run", "--root"], capsys) == [
        "runbook run: --root 뒤에 값이 없습니다. --root 바로 뒤에 값을 주세요 (설명: runbook run --help).",
        "runbook run: --root has no value after it; give its value right after --root (help: runbook run --help).",
    ]


def test_a_parameter_without_its_value(capsys):
    assert refused(["check", "--step", "3", "/tmp/nowhere", "-p", "root"], capsys) == [
        "runbook check: -p/--parameter 뒤에 값 2개가 있어야 합니다. 빠진 값을 채워 주세요. 공백이 든 값은 따옴표로 "
        "감싸세요 (설명: runbook check --help).",
        "runbook check: -p/--parameter takes 2 values after it; give the ones missing, and quote a value with a "
        "blank in it (help: runbook check --help).",
    ]


def test_an_unknown_option_is_said_by_its_command_with_its_usage(capsys):
    """argparse would say it as the top parser (`runbook: error: unrecognized arguments`), with the top's usage."""
    with pytest.raises(SystemExit):
        main(["grade", "/tmp/nowhere", "--out", "/tmp/out", "--jobz", "2"])
    err = capsys.readouterr().err
    assert err.startswith("usage: runbook grade ")
    assert err.splitlines()[-2:] == [
        "runbook grade: 이 명령이 받지 않는 인자입니다: --jobz 2. 빼거나 철자를 고치세요 "
        "(받는 인자: runbook grade --help).",
        "runbook grade: arguments this command does not take: --jobz 2; drop them or fix their spelling "
        "(the arguments it takes: runbook grade --help).",
    ]


def test_a_message_argparse_words_otherwise_is_shown_whole():
    said = usage_error("argument --x: not allowed with argument --y", "runbook run")
    assert said.ko == ("명령줄을 읽지 못했습니다. argparse 의 말: argument --x: not allowed with argument --y "
                       "(설명: runbook run --help).")
    assert said.en == ("the command line could not be read; argparse says: argument --x: not allowed with "
                       "argument --y (help: runbook run --help).")


def test_a_quoted_value_keeps_a_quote_inside_it():
    said = usage_error("argument --mode: invalid choice: \"it's\" (choose from 'apply', 'check')", "runbook run")
    assert said.en == "not a value --mode takes: it's; give one of: apply, check."
