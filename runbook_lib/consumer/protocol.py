"""What the steps and the engine need of a container runtime's configuration, in the domain's words, declared once.

A consumer is the program whose config the runbook registers the NVIDIA runtime with (containerd today:
runbook_lib/containerd/consumer/). The engine gives every run one (``run.consumer``, chosen by name from
registry.py), and the steps and the engine reach the runtime only through these methods: none of them imports an
implementation. Every method is declared here, none is probed for (as runbook_lib/steps/base.py declares every hook
of a ``Step``); tests/consumer/ holds a toy consumer the steps run against, and a test that every implementation
has every method with the same parameters.

Shapes the steps rely on:
- a *reading* (``read``) is the config as the runtime will use it: ``data`` (its tables merged, a dict),
  ``version`` (the config version its tables are read at), ``main`` (the main file: ``lab_path``, ``text``,
  ``empty``), ``files`` (every file read, each with ``lab_path``) and ``missing_imports`` (lab paths);
- a *runtime table* (``runtime_table``) is a mapping with ``runtime_type`` and ``options`` (``BinaryName``,
  ``SystemdCgroup``), the words the check cells assert;
- every planner returns runbook_lib/fs/plan.py's ``Plan``; every finding is a ``Problem`` of the catalog.
"""

from __future__ import annotations

from typing import Any, Iterator, Protocol, runtime_checkable

from runbook_lib.findings.messages import Msg
from runbook_lib.findings.problem import Problem
from runbook_lib.fs.plan import Plan


@runtime_checkable
class Consumer(Protocol):
    name: str               # its registry name
    runtime_type: str       # the type every runtime entry it writes has (rb.expected.runtime_type)

    # --- what is asked, and where the config is ------------------------------------------------------

    def wanted(self, params) -> Any:
        """The runtime the run registers (name, binary, systemd_cgroup), as the consumer's planners take it."""

    def variants(self, wanted) -> list:
        """The variants registered beside it when the variants parameter asks (each with .name and .binary)."""

    def route(self, run) -> tuple:
        """(route, refusal, params): which distribution's runtime this is and the file it really reads; the
        parameters follow it (config_path). route is None when none can be chosen (refusal says why)."""

    def on_distro(self, run) -> bool:
        """The route is a distribution's (its template or drop-in folder), not a config the runbook edits itself."""

    def rendered(self, run) -> dict[str, bytes]:
        """A distribution's generated config as it would render it from the planned template (an overlay)."""

    def empty_config_version(self, run) -> int:
        """The config version an empty config is written in."""

    def dropin_imported(self, run) -> str | None:
        """The entry of the config's own imports that already reads the runtime's drop-in (layout=auto on a node
        writes one there), or None."""

    def packaged_base(self) -> tuple[bytes, str]:
        """(bytes, where): the base config step 1 copies when there is none and the lab root holds no fixture."""

    # --- read it as the runtime reads it --------------------------------------------------------------

    def read(self, target, config_path: str, *, overlay: dict[str, bytes] | None = None):
        """The effective config (a reading, see above); raises RunbookError when it cannot be read."""

    def version(self, cfg: dict, *, path: str) -> int:
        """cfg's config version as the runtime reads it; raises RunbookError when it has none it can read."""

    def parse(self, raw: bytes, lab_path: str) -> dict:
        """One config file's data as the runtime parses it (the check cells' tomllib.load); raises RunbookError."""

    def runtime_table(self, cfg: dict, version: int, name: str) -> tuple[Any, str]:
        """(cfg's table of the runtime ``name`` or None, where it is looked up, as shown to a person)."""

    def runtimes(self, cfg: dict, version: int) -> tuple[Any, str]:
        """(cfg's table of every runtime by name or None, where it is looked up)."""

    def main_table(self, cfg: dict, version: int) -> tuple[Any, str]:
        """(the table holding default_runtime_name and the runtimes, or None, where it is looked up)."""

    def default_runtime(self, cfg: dict, version: int) -> str:
        """The default runtime's name as the runtime reads it (its built-in default when unset)."""

    def default_rule(self, params, node_default: str | None):
        """The run's rule for the default runtime: ``.holds(cfg, version)``, ``.said()`` (rb.expected.default)."""

    def builtin_default_kept(self, version: int) -> bool:
        """The runtime keeps its built-in default beside the runtimes of the file (it need not be listed)."""

    # --- plan the edit, and judge it ------------------------------------------------------------------

    def plan_runtime(self, run) -> Plan:
        """Step 2: the runtime (and its options, and the variants) written where the runtime reads it."""

    def runtime_problems(self, run) -> list[Problem]:
        """Step 2's verdict: the runtime as read, and what stops the write."""

    def foreign_runtime(self, run, reading) -> Problem | None:
        """Another owner's runtime of that name (never overwritten), or None."""

    def options_subject(self, run) -> str | None:
        """Where the runtime's options are, as a person finds them in the file (None: unreadable)."""

    def options_tables(self, reading, cfg: dict, name: str) -> list[tuple[Any, str]]:
        """[(cfg's table holding the runtime's options, or None, where it is)] for each table step 3's verdict
        judges on ``reading``: the check cell reads the same tables (the runtime's, or a misplaced one)."""

    def options_problems(self, run) -> list[Problem]:
        """Step 3's verdict: the runtime's options as read."""

    def default_problem(self, run, reading) -> Problem | None:
        """The default runtime against the run's rule (run.expected.default), or None."""

    def plan_cdi_settings(self, run, notes: list) -> list:
        """enable_cdi=True: the writes that turn the runtime's CDI on with the spec's folder (notes: said)."""

    def cdi_settings_problems(self, run) -> list[Problem]:
        """Whether the runtime will use the CDI spec (CDI on, the spec's folder scanned)."""

    def cdi_spec_dirs(self) -> tuple[str, ...]:
        """The folders the runtime's CDI registry scans when its config names none."""

    def plan_refusal(self, run) -> Problem | None:
        """Before any write: the runtime's own reading of the planned state against the node's as it is; a
        finding when the plan would change anything beside what the run adds, None otherwise or unasked."""

    # --- ask the runtime's own binary (step 9) -------------------------------------------------------

    def ask_plan(self, run) -> Plan:
        """What would be asked, or why nothing is (the step is then skipped)."""

    def ask_now(self, run) -> dict | None:
        """The runtime's own reading of the config (its whole dump), for the check cell; None when not had."""

    def ask_skipped(self, run) -> Msg | None:
        """Why the runtime's binary is not asked here, or None."""

    def ask_verdict(self, run) -> list[Problem]:
        """What the runtime read, compared with what the run expects."""

    def ask_message(self, run) -> Msg | None:
        """What the runtime read, said over the plan's message."""

    def ask_evidence(self, run) -> dict[str, str]:
        """What the runtime read, as a person reads it."""

    # --- restart --------------------------------------------------------------------------------------

    def restart_decision(self, run, *, changed: bool):
        """Whether to restart: ``.action`` (lab, check, not-needed, needed, restart) and ``.message``."""

    def restart(self, run, chosen, *, runner=None) -> tuple[Any, list[Problem]]:
        """Act on the decision (restart and confirm it came back when it says so): (the decision as it ended,
        the problems)."""

    # --- remove ---------------------------------------------------------------------------------------

    def plan_removals(self, run, planned: dict[str, bytes]) -> Iterator[Plan]:
        """mode=remove: the removal plans of what the runbook added, each seeing ``planned`` (the bytes the ones
        before planned, which the caller updates)."""

    def still_there(self, run) -> list[Msg]:
        """What the runbook added that is still in the config after the removal."""

    def plan_cdi_settings_removal(self, run, planned: dict[str, bytes]) -> list[Msg]:
        """The CDI settings an enable_cdi=True run wrote, taken out of ``planned`` (said, or [])."""

    # --- a pod through the handler (the pod step) ---------------------------------------------------------

    def pod_plan(self, run) -> Plan:
        """What the pod step would start (smoke sandbox or node)."""

    def pod_skipped(self, run) -> Msg | None:
        """Why no pod is started here (beside smoke=off, which the step says), or None."""

    def pod_attempt(self, run, *, pending_restart, expected_edits) -> Any:
        """Start the pod: a reading of what it did, or a Msg saying why it was not tried. ``pending_restart()``:
        this run wrote the config and the runtime was not restarted since; ``expected_edits(spec, device)``: what
        a request for the CDI device should bring (runbook_lib/cdi/edits.py)."""

    def pod_problems(self, run, reading) -> list[Problem]:
        """The pod's reading judged ([] when ``reading`` is no pod's)."""

    def pod_facts(self, reading) -> dict:
        """What the pod did, for the check cell ({} when ``reading`` is no pod's)."""

    def pod_message(self, run, reading) -> Msg | None:
        """What the pod proved, when it passed."""

    def pod_lines(self, facts: dict) -> list[str]:
        """The pod's facts as a person reads them."""

    def pod_evidence(self, reading) -> dict[str, str]:
        """The pod's facts as evidence ({} when ``reading`` is no pod's)."""
