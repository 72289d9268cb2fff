"""The one label rule (runbook_lib/evidence/labels.py): folder names, made longer only where two would collide."""

import pytest

from runbook_lib.evidence.labels import assign, for_roots, identity, problem, typed_problem


def test_folder_names_when_they_differ():
    assert for_roots(["/srv/class/kim", "/srv/class/lee"]) == ["kim", "lee"]
    assert for_roots(["/srv/class/kim", "/srv/class/lee"], "c") == ["c-kim", "c-lee"]
    assert for_roots(["/srv/class/kim"], "only") == ["only"]  # one root: --label is the label itself


def test_the_parent_goes_in_front_where_names_collide():
    assert for_roots(["/srv/a/kim", "/srv/b/kim", "/srv/b/lee"]) == ["a-kim", "b-kim", "lee"]
    assert for_roots(["/x/a/s/kim", "/x/b/s/kim"]) == ["a-s-kim", "b-s-kim"]


def test_a_longer_label_that_meets_another_root_s_own_name_grows_too():
    assert for_roots(["/srv/a/kim", "/srv/b/kim", "/srv/c/a-kim"]) == ["srv-a-kim", "b-kim", "c-a-kim"]


def test_labels_still_equal_when_every_folder_is_used_are_numbered():
    # host "h" with root /a-b and host "h-a" with root /b both spell h-a-b in full
    assert assign([("h", "a-b"), ("h-a", "b")]) == ["a-b", "b"]  # different folder names: no collision
    assert assign([("h", "a-b"), ("h-a", "b"), ("x", "h-a-b")]) == ["a-b", "b", "h-a-b"]
    assert assign([("h", "a", "b"), ("h-a", "b"), ("h-a-b",)]) == ["a-b", "h-a-b", "h-a-b-2"]


def test_the_same_path_on_two_hosts_goes_up_to_the_host_name():
    ids = [identity("/srv/kim", "node1"), identity("/srv/kim", "node2"), identity("/", "node3")]
    assert assign(ids) == ["node1-srv-kim", "node2-srv-kim", "node3"]


def test_equal_identities_share_a_label():
    ids = [identity("/srv/kim", "h"), identity("/srv/kim", "h")]
    assert assign(ids) == ["kim", "kim"]


@pytest.mark.parametrize("label", [" ", "kim ", " kim", "kim\tlee", "kim\x1b[0m"])
def test_a_typed_label_no_one_could_tell_apart_or_type_back_is_refused_in_both_languages(label):
    # `--label " "` made an archive folder named with a space
    why = typed_problem(label)
    assert why is not None and problem(label) is None  # a student's own folder of that name is still graded
    korean, english = why.split("\n")
    assert "--label 의 앞뒤에" in korean and english.startswith("--label begins or ends with a space")


@pytest.mark.parametrize("label", ["", "a/b", ".hidden"])
def test_a_label_that_cannot_name_a_folder_is_refused_whoever_gave_it(label):
    assert problem(label) is not None and typed_problem(label) == problem(label)


@pytest.mark.parametrize("label", ["kim", "node-1", "P-kim", "김철수", "a b"])
def test_ordinary_labels_are_accepted(label):
    assert problem(label) is None and typed_problem(label) is None
