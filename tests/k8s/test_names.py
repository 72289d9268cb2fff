"""DNS-1123 label rule used for the runtime name, RuntimeClass metadata.name and handler."""
import pytest

from runbook_lib.k8s.names import dns1123_label_problem


@pytest.mark.parametrize("value", ["nvidia", "a", "0", "nvidia-cdi", "runc2", "a" * 63, "9nvidia"])
def test_valid_labels(value):
    assert dns1123_label_problem(value) is None


@pytest.mark.parametrize("value,why", [
    ("", "empty"),
    ("a" * 64, "64 characters"),
    ("Nvidia", "not a DNS-1123 label"),
    ("nvidia.gpu", "not a DNS-1123 label"),  # a subdomain, not a label
    ("-nvidia", "not a DNS-1123 label"),
    ("nvidia-", "not a DNS-1123 label"),
    ("nvidia_gpu", "not a DNS-1123 label"),
    ("nvi dia", "not a DNS-1123 label"),
    ("nvidia\n", "not a DNS-1123 label"),
    (None, "not a string"),
    (7, "not a string"),
])
def test_invalid_labels_are_explained_in_both_languages(value, why):
    problem = dns1123_label_problem(value)
    assert problem is not None and why in problem.en
    korean, english = problem.ko, problem.en
    assert any("\uac00" <= ch <= "\ud7a3" for ch in korean)
    assert english.isascii()


def test_suggestion_is_itself_valid():
    problem = dns1123_label_problem("NVIDIA_GPU")
    assert '"nvidia-gpu"' in problem.en and dns1123_label_problem("nvidia-gpu") is None
