"""`python -m runbook_lib.kernel` (the kernelspec's argv) starts the kernel; `... install` installs its kernelspec."""

import sys

from runbook_lib.kernel.app import install, launch

if sys.argv[1:2] == ["install"]:
    raise SystemExit(install(sys.argv[2:]))
launch()
