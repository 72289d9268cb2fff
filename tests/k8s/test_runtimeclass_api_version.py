"""A RuntimeClass written with an apiVersion of an old guide is named for what it is (runtimeclass.apiVersion.retired:
the API server no longer serves it), not only as a value that differs; any other apiVersion is a value that differs."""

from __future__ import annotations

import pytest

from runbook_lib.k8s.runtimeclass import build_runtimeclass, runtimeclass_problems, load_runtimeclass

PATH = "/root/toolkit/runtimeclass.yaml"


def problems_for(api_version: str):
    text = build_runtimeclass("nvidia").replace("apiVersion: node.k8s.io/v1\n", f"apiVersion: {api_version}\n")
    return runtimeclass_problems(load_runtimeclass(text, PATH), "nvidia", PATH, text)


@pytest.mark.parametrize("api_version", ["node.k8s.io/v1beta1", "node.k8s.io/v1alpha1"])
def test_a_retired_api_version_says_the_api_server_no_longer_serves_it(api_version):
    [p] = problems_for(api_version)
    assert (p.code, p.path, p.line) == ("runtimeclass.apiVersion.retired", PATH, 3)
    assert p.what.en == (f"apiVersion is an old version of RuntimeClass: {api_version}; the Kubernetes API server no "
                         "longer serves it (node.k8s.io/v1beta1 since 1.25), so kubectl apply fails with "
                         "'no matches for kind'.")
    assert p.what.ko.startswith(f"apiVersion 이 RuntimeClass 의 예전 버전입니다: {api_version}. ")
    assert (p.fix.en, p.fix.ko) == ("apiVersion: node.k8s.io/v1", "apiVersion: node.k8s.io/v1")


@pytest.mark.parametrize("api_version", ["node.k8s.io/v2", "v1", "node.k8s.io/V1"])
def test_another_api_version_is_a_value_that_differs(api_version):
    [p] = problems_for(api_version)
    assert p.code == "runtimeclass.apiVersion"
    assert p.what.en == f"apiVersion is {api_version} (expected node.k8s.io/v1)."


def test_the_right_api_version_has_no_finding():
    assert problems_for("node.k8s.io/v1") == []
