"""An error raised deep in a parser carries its finding whole: Problem.from_error gives back exactly the Problem
it was raised with (code, values, where, excerpt, pointer, severity, why), for every error type."""

import pytest

from runbook_lib.containerd.distro.render import TemplateUnrendered
from runbook_lib.containerd.findings import OTHER_BINARY, FindingError, RuntimeOwnedElsewhere, raised
from runbook_lib.findings.errors import (ConfigError, ConfinementError, LockTimeout, ParameterError, RunbookError,
                                         WriteError)
from runbook_lib.findings.messages import Msg
from runbook_lib.findings.problem import WARNING, Problem

ERRORS = [RunbookError, ParameterError, ConfigError, ConfinementError, WriteError, LockTimeout, FindingError,
          RuntimeOwnedElsewhere, TemplateUnrendered]


def _finding() -> Problem:
    p = Problem.of("options.systemd_cgroup.string", "/etc/containerd/config.toml", 35, col=17,
                   pointer="plugins.cri.containerd.runtimes.nvidia.options.SystemdCgroup",
                   excerpt='SystemdCgroup = "true"\n                ^', severity=WARNING, value='"true"', fixed="true",
                   expected="true", key="options.SystemdCgroup")
    assert p.why is not None and p.values and p.pointer and p.excerpt  # every field the round trip must keep
    return p


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: e.__name__)
def test_an_error_gives_back_the_finding_it_was_raised_with(error):
    sent = _finding()
    with pytest.raises(error) as caught:
        raise error(sent)
    back = Problem.from_error(caught.value)
    assert back == sent
    assert back is not sent and back.values is not sent.values  # a copy: the error's finding stays as raised
    assert caught.value.code == sent.code and caught.value.finding == sent


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: e.__name__)
def test_an_error_made_from_a_code_carries_the_catalogs_finding(error):
    exc = error.of("runtime.other_binary", "/etc/containerd/config.toml", 12, runtime="nvidia", current="/a",
                   wanted="/b", owner="gpu-operator", file="/etc/containerd/config.toml", where="x:12",
                   who=Msg("GPU Operator", "the GPU Operator"))
    back = Problem.from_error(exc)
    assert back == Problem.of("runtime.other_binary", "/etc/containerd/config.toml", 12, **exc.values)
    assert "the GPU Operator" in back.what.en and "GPU Operator" in back.what.ko and "the GPU" not in back.what.ko


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: e.__name__)
def test_an_error_with_words_of_its_own_keeps_them_and_its_default_code(error):
    exc = error(Msg("가", "a"), Msg("나", "b"), path="/x", line=3, col=2, excerpt="x\n ^", why=Msg("다", "c"))
    back = Problem.from_error(exc)
    assert (back.code, back.what, back.fix, back.why, back.where(), back.excerpt) == \
        (error.default_code, Msg("가", "a"), Msg("나", "b"), Msg("다", "c"), "/x:3:2", "x\n ^")


def test_the_planners_raise_another_owners_runtime_as_its_own_type():
    assert type(raised(Problem.of(OTHER_BINARY, runtime="nvidia"))) is RuntimeOwnedElsewhere
    assert type(raised(Problem.of("distro.unknown", distro="x", known=["k3s"]))) is FindingError
