"""What each step teaches: the lesson a mistake in that step points a student (and the instructor) back to.

Keyed by step id, as the step records name them. An id this table does not know (a step added later) still
gets a lesson: the generic one, which names the step by its own title.
"""

from __future__ import annotations

from runbook_lib.findings.messages import Msg
from runbook_lib.findings.catalog import say

LESSONS: dict[str, Msg] = {
    "prepare": say("lessons.step_etc_containerd_folder"),
    "runtime": say("lessons.step_add_runtime_table"),
    "options": say("lessons.step_binaryname_absolute_path"),
    "default": say("lessons.step_default_runtime_stays"),
    "parse": say("lessons.step_read_config_back"),
    "cdi": say("lessons.step_cdi_spec_needs"),
    "runtimeclass": say("lessons.step_runtimeclass_handler_must"),
    "report": say("lessons.step_every_value_report"),
    "containerd": say("lessons.step_ask_containerd_itself"),
    "restart": say("lessons.containerd_must_restarted_changed"),
    "pod": say("lessons.pod_through_the_handler"),
}


def lesson(step_id: str | None, title: dict | None = None) -> Msg:
    """The lesson of a step; for an unknown id, one built from the step's own title."""
    if step_id in LESSONS:
        return LESSONS[step_id]
    title = title or {}
    return say("lessons.read_step_s_explanation", title={"ko": title.get('ko') or step_id, "en": title.get('en') or step_id})
