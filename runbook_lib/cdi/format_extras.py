"""jsonschema's format-only extras: modules it imports at import time just to register format checkers.

With JupyterLab installed, `jsonschema[format-nongpl]` brings `rfc3987_syntax`, and `import jsonschema` loads
it to register the "iri" checkers: it compiles an RFC 3987 grammar with lark, about 3 s of CPU here
(docs/BENCHMARKS.md). Each of these imports sits in jsonschema/_format.py under `suppress(ImportError)`, so a
module marked absent in `sys.modules` only means jsonschema has no checker for that format. Neither notebook
validation (nbformat: no format checker) nor the CDI schema (no `format` keyword; tests/real/
test_real_cdi_schema.py checks) uses them.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

FORMAT_ONLY = ("rfc3987_syntax", "rfc3986_validator", "rfc3339_validator", "isoduration", "webcolors",
               "uri_template", "fqdn")


def skip_for_this_process() -> None:
    """Mark them absent for good (the runner's own process, before papermill imports nbformat)."""
    for name in FORMAT_ONLY:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]


@contextmanager
def skipped_while_importing():
    """Mark them absent only while jsonschema is first imported, then leave `sys.modules` as it was: in a
    kernel, the user's own `import rfc3987_syntax` afterwards still works."""
    marked = [name for name in FORMAT_ONLY if name not in sys.modules]
    for name in marked:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        for name in marked:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]
