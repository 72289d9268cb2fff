"""render writes TOML that reads back as the value it was given, in the quote style asked for."""

from __future__ import annotations

import tomllib

import pytest

from runbook_lib.containerd import render

SAMPLES = [True, False, 0, 1, -7, 2**63 - 1, "", "runc", "/usr/bin/nvidia-container-runtime", "io.containerd.runc.v2",
           "a b", "it's", 'say "hi"', "back\\slash", "tab\there", "line\nbreak", "ünïcode", "한국어", "~!@#$%^&*()[]{}",
           "x" * 200, 1.5, ["a", 1], {"k": "v"}]
SAMPLES += [f"a{chr(c)}b" for c in range(0x01, 0x80)]


@pytest.mark.parametrize("literal", [False, True])
def test_every_value_reads_back_as_itself(literal):
    for v in SAMPLES:
        assert tomllib.loads(f"k = {render.value(v, literal=literal)}")["k"] == v, repr(v)


def test_literal_strings_use_single_quotes_when_they_can():
    assert render.value("/usr/bin/x", literal=True) == "'/usr/bin/x'"
    assert render.value("it's", literal=True) == '"it\'s"'
    assert render.value("/usr/bin/x") == '"/usr/bin/x"'


@pytest.mark.parametrize("name", ["io.containerd.grpc.v1.cri", "a b", "x:y", "k8s.io/*", "runc", "it's"])
@pytest.mark.parametrize("quote", ['"', "'"])
def test_keys_read_back_as_themselves_in_the_files_quote_style(name, quote):
    rendered = render.key(name, quote)
    assert tomllib.loads(f"{rendered} = 1") == {name: 1}
    if not render.BARE.fullmatch(name) and "'" not in name:
        assert rendered[0] == quote
