"""runbook_lib: register the NVIDIA runtime with containerd under a target root, and prove it.

The notebook (notebooks/run.ipynb) is a thin story over this package; every decision lives here so that it
can be tested directly.
"""

__version__ = "0.1.0"

from runbook_lib.findings.errors import RunbookError  # noqa: E402

__all__ = ["RunbookError", "__version__"]
