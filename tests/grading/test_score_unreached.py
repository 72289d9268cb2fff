"""Issue 54: a rule only an unrelated test held. A notebook stopped part way scores 0 for every lab step it never
reached, and those steps stay in the total: every student is graded out of the same total."""

from runbook_lib.grading.score import NOT_REACHED, scored, total
from runbook_lib.lab.student import LAB_STEPS
from runbook_lib.steps import STEPS


def _record(step, status):
    return {"step": step.number, "id": step.id, "status": status, "problems": []}


def test_the_steps_a_stopped_notebook_never_reached_stay_in_the_total():
    lab = [s for s in STEPS if s.id in LAB_STEPS]
    reached = [_record(s, "passed") for s in lab[:3]]
    assert total(reached) == (3.0, float(len(lab)))
    unreached = [s for s in scored(reached) if s.status == NOT_REACHED]
    assert [s.rec["id"] for s in unreached] == [s.id for s in lab[3:]]
    assert all(s.score == 0.0 and s.max_score == 1.0 for s in unreached)


def test_a_notebook_that_recorded_nothing_is_graded_out_of_the_same_total():
    lab = [s for s in STEPS if s.id in LAB_STEPS]
    assert total([]) == (0.0, float(len(lab)))
    assert total([_record(s, "passed") for s in lab]) == (float(len(lab)), float(len(lab)))
