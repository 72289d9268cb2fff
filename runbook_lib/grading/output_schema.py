"""Each output nbclient builds from a kernel message, checked against nbformat's own schema with fastjsonschema.

nbclient turns every output message into a notebook node with `nbformat.v4.output_from_msg`, which validates
it (`nbformat.validate(node, ref=<output type>)`). nbformat validates a whole notebook with fastjsonschema (its
default, `NBFORMAT_VALIDATOR`), but a `ref` always with jsonschema (its fastjsonschema class hands any schema
but the whole notebook's to jsonschema): ~0.5 ms an output, ~35 outputs a student, in the one process that
drives the whole class. Here the same schema file nbformat reads for that validation (the v4 schema of the
current minor version) is compiled once per output type with fastjsonschema; an output it rejects goes
through nbformat's own validation, so what is raised, and its message, is nbformat's.

Used while a class is graded (runbook_lib/grading/runner.py: `fast_output_checks()`), and put back after.
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from pathlib import Path

OUTPUT_TYPES = ("display_data", "execute_result", "stream", "error")

_lock = threading.Lock()
_active = [0]  # gradings running now (the class notebook may run one in a thread of its kernel)
_compiled: dict[str, object] = {}


def _validators() -> dict[str, object]:
    if not _compiled:
        import fastjsonschema
        import nbformat.v4 as v4

        schema = json.loads((Path(v4.__file__).parent / v4.nbformat_schema[(4, v4.nbformat_minor)]).read_text(
            encoding="utf-8"))
        for name in OUTPUT_TYPES:  # the schema's definitions, the root a reference to one output type
            _compiled[name] = fastjsonschema.compile({"$schema": schema["$schema"], "definitions": schema["definitions"],
                                                      "$ref": f"#/definitions/{name}"})
    return _compiled


def checker(original):
    """nbformat.v4.nbbase.validate's stand-in: fastjsonschema for an output, nbformat's own for anything else
    and for an output fastjsonschema rejects."""
    import fastjsonschema

    validators = _validators()

    def validate(node, ref=None):
        check = validators.get(ref)
        if check is None:
            return original(node, ref)
        try:
            check(node)
        except fastjsonschema.JsonSchemaException:
            return original(node, ref)  # nbformat's own error (jsonschema's message)
        return None

    validate.original = original
    return validate


@contextmanager
def fast_output_checks():
    """While the block runs, outputs are validated by fastjsonschema (module nbformat.v4.nbbase, whose
    new_output calls its `validate`); then nbformat's own function is back."""
    from nbformat.v4 import nbbase

    with _lock:
        if _active[0] == 0:
            nbbase.validate = checker(nbbase.validate)
        _active[0] += 1
    try:
        yield
    finally:
        with _lock:
            _active[0] -= 1
            if _active[0] == 0:
                nbbase.validate = nbbase.validate.original
