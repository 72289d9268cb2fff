"""`python -m runbook_lib.show OUT.ipynb`: the step summary's public entry point (runbook_lib/evidence/show.py)."""

import sys

from runbook_lib.evidence.show import main

if __name__ == "__main__":
    sys.exit(main())
