"""The grader's fastjsonschema check of each output (runbook_lib/grading/output_schema.py) gives nbformat's verdict."""

import nbformat.v4.nbbase as nbbase
import pytest
from nbformat import ValidationError
from nbformat.v4 import new_code_cell, new_output, output_from_msg

from runbook_lib.grading.output_schema import fast_output_checks

VALID = [
    ("display_data", {"data": {"text/plain": "x", "text/html": "<b>x</b>",
                               "application/vnd.runbook.step+json": {"step": 2, "files": [{"path": "/a"}]}},
                      "metadata": {}}),
    ("display_data", {"data": {"text/plain": ["a\n", "b"]}, "metadata": {"isolated": True}}),
    ("execute_result", {"data": {"text/plain": "1"}, "metadata": {}, "execution_count": 3}),
    ("stream", {"name": "stderr", "text": "warning\n"}),
    ("error", {"ename": "StepFailed", "evalue": "step 3 failed", "traceback": ["✗ 3", "fix"]}),
]
INVALID = [
    ("display_data", {"data": {"text/plain": 5}}),  # a text output that is no string
    ("display_data", {"data": {"text/plain": "x"}, "surprise": 1}),  # a key the schema does not allow
    ("stream", {"name": "stdout", "text": 3}),
    ("execute_result", {"data": {"text/plain": "1"}, "execution_count": "3"}),
    ("error", {"ename": "E", "evalue": "e", "traceback": "not a list"}),
]


def _message(kind, content):
    return {"msg_type": kind, "header": {"msg_type": kind}, "content": content}


@pytest.mark.parametrize("kind, content", VALID)
def test_a_valid_output_is_the_same_node_with_either_check(kind, content):
    plain = output_from_msg(_message(kind, content))
    with fast_output_checks():
        assert nbbase.validate is not nbbase.validate.original  # the fast check is the one in use
        fast = output_from_msg(_message(kind, content))
    assert fast == plain


@pytest.mark.parametrize("kind, content", INVALID)
def test_an_invalid_output_raises_nbformats_own_error(kind, content):
    fields = {k: v for k, v in content.items() if k != "data"}
    with pytest.raises(ValidationError) as plain:
        new_output(kind, data=content.get("data"), **fields)
    with fast_output_checks(), pytest.raises(ValidationError) as fast:
        new_output(kind, data=content.get("data"), **fields)
    assert str(fast.value) == str(plain.value)


def test_other_nodes_and_the_time_after_go_through_nbformat():
    original = nbbase.validate
    with fast_output_checks():
        with fast_output_checks():  # nested (a class notebook grading while another grading runs)
            pass
        assert nbbase.validate is not original
        assert new_code_cell("x = 1").source == "x = 1"  # a cell: nbformat's own validation
        with pytest.raises(ValidationError):
            new_code_cell("x", execution_count="one")
    assert nbbase.validate is original
