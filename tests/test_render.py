"""render.value writes plain values itself (so a run need not import tomlkit): exactly tomlkit's text."""

from __future__ import annotations

import subprocess
import sys

import pytest

from runbook_lib.containerd import render

SAMPLES = [True, False, 0, 1, -7, 2**63 - 1, "", "runc", "/usr/bin/nvidia-container-runtime", "io.containerd.runc.v2",
           "a b", "it's", 'say "hi"', "back\\slash", "tab\there", "line\nbreak", "ünïcode", "한국어", "~!@#$%^&*()[]{}",
           "x" * 200, 1.5, ["a", 1], {"k": "v"}]
SAMPLES += [f"a{chr(c)}b" for c in range(0x00, 0x80)]


def reference(v, literal: bool) -> str:
    return render.tomlkit_value(v, literal=literal)


def outcome(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - tomlkit refuses some strings; so must render
        return type(exc)


@pytest.mark.parametrize("literal", [False, True])
def test_value_is_byte_for_byte_what_tomlkit_writes(literal):
    for v in SAMPLES:
        assert outcome(lambda: render.value(v, literal=literal)) == outcome(reference, v, literal), repr(v)


def test_rendering_plain_values_does_not_import_tomlkit():
    code = ("import sys\nfrom runbook_lib.containerd import render\n"
            "render.value(True); render.value('/usr/bin/x'); render.value(3); render.key('runc')\n"
            "print('tomlkit' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize("name", ["io.containerd.grpc.v1.cri", "a b", "x:y", "k8s.io/*", "runc"])
def test_key_is_byte_for_byte_what_tomlkit_writes(name):
    import tomlkit
    assert render.key(name) == (name if render.BARE.fullmatch(name) else tomlkit.key(name).as_string())
