"""`python -m runbook_lib.cli ...` is the `runbook` command (the Ansible role calls it this way)."""

import sys

from runbook_lib.cli.main import main

sys.exit(main())
