"""containerd as the runbook's consumer: the one implementation of runbook_lib/consumer/protocol.py today, named by
runbook_lib/consumer/registry.py. Each method delegates to the containerd modules that hold the rule (versions,
reading and merging, edits, diagnosis, asking containerd, the distributions); the step logic that only containerd
has lives beside it in this package: registering.py (steps 2 and 3), asking.py (step 9), locating.py (the
distribution's route), guard.py (the plan asked of containerd), removing.py (mode=remove), pod.py (the pod step).
"""

from __future__ import annotations

import posixpath
from importlib import resources

from runbook_lib.containerd import diagnose
from runbook_lib.containerd import restart as service
from runbook_lib.containerd.cdi_config import DEFAULT_SPEC_DIRS, cdi_findings, cdi_settings, plan_cdi
from runbook_lib.containerd.consumer import asking, guard, locating, pod, registering, removing
from runbook_lib.containerd.default_rule import DefaultRule
from runbook_lib.containerd.dropin import dropin_imported
from runbook_lib.containerd.distro.detect import EDIT_CONFIG
from runbook_lib.containerd.edit import RuntimeWanted, default_runtime_name
from runbook_lib.containerd.effective import load_effective, read_version
from runbook_lib.containerd.load import load_toml
from runbook_lib.containerd.tables import get_in
from runbook_lib.containerd.variants import runtime_variants
from runbook_lib.containerd.versions import RUNTIME_TYPE, containerd_table, format_path, of, runtime_path, runtimes_path
from runbook_lib.findings.catalog import say
from runbook_lib.findings.problem import WARNING

PACKAGED_BASE = "runbook_lib/data/config.toml.base"


def _at(cfg: dict, path: tuple) -> tuple:
    return get_in(cfg, path), format_path(path)


class Containerd:
    name = "containerd"
    runtime_type = RUNTIME_TYPE

    # --- what is asked, and where the config is ------------------------------------------------------

    def wanted(self, params):
        return RuntimeWanted(params.runtime_name, params.binary_name, params.systemd_cgroup)

    def variants(self, wanted) -> list:
        return runtime_variants(wanted)

    def route(self, run) -> tuple:
        return locating.choose(run)

    def on_distro(self, run) -> bool:
        return run.route is not None and run.route.edit != EDIT_CONFIG

    def rendered(self, run) -> dict[str, bytes]:
        return locating.rendered(run)

    def empty_config_version(self, run) -> int:
        return locating.empty_config_version(run)

    def dropin_imported(self, run) -> str | None:
        return dropin_imported(run.target, run.p.config_path, run.p.runtime_name)

    def packaged_base(self) -> tuple[bytes, str]:
        return (resources.files("runbook_lib") / "data" / "config.toml.base").read_bytes(), PACKAGED_BASE

    # --- read it as containerd reads it ---------------------------------------------------------------

    def read(self, target, config_path: str, *, overlay: dict[str, bytes] | None = None):
        if overlay is None:
            return load_effective(target, config_path)
        return load_effective(target, config_path, overlay=overlay)

    def version(self, cfg: dict, *, path: str) -> int:
        return read_version(cfg, path=path, empty=not cfg)

    def parse(self, raw: bytes, lab_path: str) -> dict:
        return load_toml(raw, lab_path).data

    def runtime_table(self, cfg: dict, version: int, name: str) -> tuple:
        return _at(cfg, runtime_path(version, name))

    def runtimes(self, cfg: dict, version: int) -> tuple:
        return _at(cfg, runtimes_path(version))

    def main_table(self, cfg: dict, version: int) -> tuple:
        return _at(cfg, containerd_table(version))

    def default_runtime(self, cfg: dict, version: int) -> str:
        return default_runtime_name(cfg, version)

    def default_rule(self, params, node_default: str | None):
        return DefaultRule.of(params, node_default)

    def builtin_default_kept(self, version: int) -> bool:
        return of(version).keeps_builtin_runc

    # --- plan the edit, and judge it ------------------------------------------------------------------

    def plan_runtime(self, run):
        return registering.plan(run)

    def runtime_problems(self, run) -> list:
        return registering.runtime_verdict(run)

    def foreign_runtime(self, run, reading):
        return registering.foreign_problem(run, reading)

    def options_subject(self, run) -> str | None:
        return registering.options_subject(run)

    def options_tables(self, reading, cfg: dict, name: str) -> list:
        return [_at(cfg, path) for path in registering.options_paths(reading, name)]

    def options_problems(self, run) -> list:
        return registering.options_verdict(run)

    def default_problem(self, run, reading):
        return diagnose.default_problem(reading, run.p, run.expected.default)

    def plan_cdi_settings(self, run, notes: list) -> list:
        """enable_cdi=True: containerd's CRI plugin gets enable_cdi = true and the spec's folder in cdi_spec_dirs,
        every other line of the config kept (containerd/cdi_config.py)."""
        eff = run.effective()
        owner = diagnose.owner_file(eff, run.p.runtime_name)
        edit = plan_cdi(owner.text, owner.data, eff.version, posixpath.dirname(run.p.cdi_spec), lab_path=owner.lab_path)
        notes += edit.notes
        return [run.plan_write(owner.lab_path, owner.encode(edit.text))] if edit.changed_from(owner.text) else []

    def cdi_settings_problems(self, run) -> list:
        """Whether containerd will use the spec (CDI on, its folder scanned): required with enable_cdi=True, a
        warning on a real node otherwise (the nvidia runtime itself does not need containerd's CDI), nothing in a
        lab root, where it would only be noise."""
        if not (run.p.enable_cdi or run.target.is_host):
            return []
        eff = run.effective()
        found = cdi_findings(cdi_settings(eff.data, eff.version), posixpath.dirname(run.p.cdi_spec), lab_path=eff.main.lab_path)
        if not run.p.enable_cdi:
            for f in found:
                f.severity = WARNING
        return found

    def cdi_spec_dirs(self) -> tuple[str, ...]:
        return DEFAULT_SPEC_DIRS

    def plan_refusal(self, run):
        return guard.refusal(run)

    # --- ask containerd itself (step 9) -----------------------------------------------------------------

    def ask_plan(self, run):
        return asking.plan(run)

    def ask_now(self, run):
        return asking.ask_now(run)

    def ask_skipped(self, run):
        return asking.skipped(run)

    def ask_verdict(self, run) -> list:
        return asking.verdict(run)

    def ask_message(self, run):
        return asking.message(run)

    def ask_evidence(self, run) -> dict[str, str]:
        return asking.evidence(run)

    # --- restart --------------------------------------------------------------------------------------

    def restart_decision(self, run, *, changed: bool):
        return service.decide(real_node=run.target.is_host, check_only=run.p.check_only, config_changed=changed,
                              asked=run.p.restart_containerd, node=run.p.profile == "node", root=str(run.target.root))

    def restart(self, run, chosen, *, runner=None) -> tuple:
        """The distribution's own restart command (k3s, RKE2, microk8s restart their service), or none when it
        watches its config folder; then systemctl's, confirmed (containerd/restart.py)."""
        problems: list = []
        command = tuple(run.route.restart) if run.route is not None and run.route.restart else tuple(service.RESTART)
        if run.route is not None and not run.route.restart and chosen.action in ("needed", "restart"):
            chosen = service.Decision("not-needed", say("steps.restart.watches_config_folder_reloads", distro=run.route.distro))
        if chosen.action == "restart":
            problems = service.restart_and_confirm(runner or service.run_command, command=command)
            if not problems:
                chosen = service.Decision(chosen.action, service.BACK)
        return chosen, problems

    # --- remove ---------------------------------------------------------------------------------------

    def plan_removals(self, run, planned: dict[str, bytes]):
        return removing.removals(run, planned)

    def still_there(self, run) -> list:
        return removing.still_there(run)

    def plan_cdi_settings_removal(self, run, planned: dict[str, bytes]) -> list:
        return removing.without_cdi_settings(run, planned)

    # --- a pod through the handler (the pod step) ---------------------------------------------------------

    def pod_plan(self, run):
        return pod.plan(run)

    def pod_skipped(self, run):
        return pod.skipped(run)

    def pod_attempt(self, run, *, pending_restart, expected_edits):
        return pod.attempt(run, pending_restart, expected_edits)

    def pod_problems(self, run, reading) -> list:
        return pod.problems(run, reading)

    def pod_facts(self, reading) -> dict:
        return pod.facts(reading)

    def pod_message(self, run, reading):
        return pod.message(run, reading)

    def pod_lines(self, facts: dict) -> list[str]:
        return pod.lines(facts)

    def pod_evidence(self, reading) -> dict[str, str]:
        return pod.evidence(reading)
