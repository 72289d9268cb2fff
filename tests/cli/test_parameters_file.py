"""A file named on the command line that cannot be taken (`-f PARAMS.yaml` of runbook run and grade, `--points` of
runbook grade; runbook_lib/fs/given.py): what is wrong with it, where in it and what to give instead, in both
languages; never Python's English OSError with a repr, nor libyaml's message of several lines."""

from __future__ import annotations

import pytest

from runbook_lib.cli.args import read_parameters_file
from runbook_lib.cli.refused import Refused
from runbook_lib.grading.score import load_points


def refusal(path) -> list[str]:
    with pytest.raises(Refused) as refused:
        read_parameters_file(str(path))
    return str(refused.value).split("\n")


def test_a_missing_file(tmp_path):
    f = tmp_path / "nope.yaml"
    assert refusal(f) == [f"파라미터 파일 자리에 파일이 없습니다: {f}. 경로를 확인하세요 (예: -f params/node.yaml).",
                          f"no parameters file at {f}; check the path (e.g. -f params/node.yaml)."]


def test_a_folder(tmp_path):
    assert refusal(tmp_path) == [f"파라미터 파일 자리에 폴더가 있습니다: {tmp_path}. 폴더 안의 YAML 파일을 주세요.",
                                 f"the parameters file given is a folder: {tmp_path}; give the YAML file in it."]


def test_a_yaml_syntax_error_names_its_line_and_column(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text("mode: check\nroot: [/srv\n")
    assert refusal(f) == [
        f"파라미터 파일 자리의 파일을 YAML 로 읽을 수 없습니다 (3번째 줄 1번째 칸): {f}: expected ',' or ']', but got "
        "'<stream end>'. 그 줄의 들여쓰기와 괄호, 콜론(:) 뒤의 공백을 확인하세요.",
        f"the parameters file given is not readable as YAML (line 3, column 1): {f}: expected ',' or ']', but got "
        "'<stream end>'; check that line's indentation, brackets and the space after each colon."]


def test_a_file_that_is_not_text(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_bytes(b"mode: check\n\xff\n")
    assert refusal(f) == [
        f"파라미터 파일 자리의 파일이 UTF-8 텍스트가 아닙니다: {f} (13번째 바이트). YAML 텍스트 파일을 주세요.",
        f"the parameters file given is not UTF-8 text: {f} (at byte 13); give a YAML text file."]


def test_a_file_too_large_is_not_told_to_be_made_again(tmp_path):
    """The bounded read's finding tells a file of a root's to be moved aside and made again; a file given by
    mistake (a binary, a log) is another file to give."""
    f = tmp_path / "p.yaml"
    f.write_bytes(b"#" * (100 * 1024))
    assert refusal(f) == [
        f"파라미터 파일 자리의 파일이 너무 큽니다: {f} (100.0 KiB, 읽는 한도 64.0 KiB). 몇 줄짜리 YAML 파일을 주세요 "
        "(예: -f params/node.yaml).",
        f"the parameters file given is too large: {f} (100.0 KiB; it is read up to 64.0 KiB); give a YAML file of a "
        "few lines (e.g. -f params/node.yaml)."]


def test_a_file_that_cannot_be_read_says_what_the_kernel_said(tmp_path):
    f = tmp_path / "p.yaml"
    f.symlink_to(f)  # a link to itself: ELOOP, whoever reads it (CI runs as root, which any mode lets read)
    assert refusal(f) == [
        f"파라미터 파일 자리의 파일을 읽지 못했습니다 (Too many levels of symbolic links): {f}. 읽을 수 있는 파일을 "
        "주세요.",
        f"the parameters file given cannot be read (Too many levels of symbolic links): {f}; give a file that can "
        "be read."]


def test_the_points_file_is_read_the_same_way_under_its_own_name(tmp_path):
    """One reader for both (fs/given.py): the points file's words name it and show --points."""
    with pytest.raises(ValueError) as refused:
        load_points(tmp_path / "nope.yaml")
    f = tmp_path / "nope.yaml"
    assert str(refused.value).split("\n") == [
        f"점수 파일 자리에 파일이 없습니다: {f}. 경로를 확인하세요 (예: --points course.yaml).",
        f"no points file at {f}; check the path (e.g. --points course.yaml)."]
    big = tmp_path / "big.yaml"
    big.write_bytes(b"points:\n" + b"#" * (100 * 1024))
    with pytest.raises(ValueError) as refused:  # a file of any size was read whole before
        load_points(big)
    assert str(refused.value).startswith(f"점수 파일 자리의 파일이 너무 큽니다: {big} (100.0 KiB, 읽는 한도 64.0 KiB).")
