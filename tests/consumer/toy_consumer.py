"""A made-up container runtime, "toyrt", as a second consumer of runbook_lib/consumer/protocol.py: the proof that
the steps and the engine need nothing of containerd but the protocol (tests/consumer/test_consumer_seam.py).

toyrt reads one TOML file of its own layout, no plugins, no imports, no versions but ``format``:

    format = 1
    default = "crun"

    [runtime.crun]
    runtime_type = "toy.shim.v1"

    [runtime.nvidia]                     # what the runbook adds
    runtime_type = "toy.shim.v1"

    [runtime.nvidia.options]
    BinaryName = "/usr/bin/nvidia-container-runtime"
    SystemdCgroup = true

It imports nothing of runbook_lib.containerd; its sentences are the catalog's (runbook_lib/data/findings.yaml).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from typing import NamedTuple

from runbook_lib.consumer.protocol import Consumer
from runbook_lib.findings.catalog import say
from runbook_lib.findings.errors import ConfigError
from runbook_lib.findings.problem import Problem
from runbook_lib.fs.plan import Plan
from runbook_lib.fs.safe_write import read_bytes

NAME = "toyrt"
CONFIG = "/etc/toyrt/config.toml"
TYPE = "toy.shim.v1"
BASE = f'# toyrt\'s own config\nformat = 1\ndefault = "crun"\n\n[runtime.crun]\nruntime_type = "{TYPE}"\n'


class Wanted(NamedTuple):
    name: str
    binary: str
    systemd_cgroup: bool


@dataclass
class File:
    lab_path: str
    text: str
    empty: bool


@dataclass
class Reading:
    main: File
    data: dict
    version: int
    files: list = field(default_factory=list)
    missing_imports: list = field(default_factory=list)


class Decision(NamedTuple):
    action: str
    message: object


@dataclass(frozen=True)
class DefaultRule:
    runtime: str

    def holds(self, cfg: dict, version) -> bool:
        default = cfg.get("default", "crun")
        return version is not None and default != self.runtime and default in (cfg.get("runtime") or {})

    def said(self):
        return say("default_rule.lab", runtime=self.runtime)


def _block(w: Wanted) -> str:
    cgroup = "true" if w.systemd_cgroup else "false"
    return (f'\n[runtime.{w.name}]\nruntime_type = "{TYPE}"\n\n[runtime.{w.name}.options]\n'
            f'BinaryName = "{w.binary}"\nSystemdCgroup = {cgroup}\n')


class Toy(Consumer):
    name = NAME
    runtime_type = TYPE

    # --- what is asked, and where the config is ------------------------------------------------------

    def wanted(self, params):
        return Wanted(params.runtime_name, params.binary_name, params.systemd_cgroup)

    def variants(self, wanted) -> list:
        return []

    def route(self, run) -> tuple:
        return None, None, run.asked

    def on_distro(self, run) -> bool:
        return False

    def rendered(self, run) -> dict[str, bytes]:
        return {}

    def empty_config_version(self, run) -> int:
        return 1

    def dropin_imported(self, run) -> str | None:
        return None  # the toy's config imports nothing

    def packaged_base(self) -> tuple[bytes, str]:
        return BASE.encode(), "tests/consumer/toy_consumer.py"

    # --- read it as toyrt reads it ----------------------------------------------------------------------

    def read(self, target, config_path: str, *, overlay: dict[str, bytes] | None = None):
        raw = (overlay or {}).get(config_path)
        if raw is None:
            raw = read_bytes(target.resolve(config_path), shown=config_path)
        if raw is None:
            raise ConfigError.of("config.unreadable.config_file_does_not", path=config_path,
                                 config_lab_path=config_path)
        data = self.parse(raw, config_path)
        main = File(config_path, raw.decode(), not raw.strip())
        return Reading(main, data, self.version(data, path=config_path), [main])

    def version(self, cfg: dict, *, path: str) -> int:
        return int(cfg.get("format", 1))

    def parse(self, raw: bytes, lab_path: str) -> dict:
        return tomllib.loads(raw.decode())

    def runtime_table(self, cfg: dict, version: int, name: str) -> tuple:
        return (cfg.get("runtime") or {}).get(name), f"runtime.{name}"

    def runtimes(self, cfg: dict, version: int) -> tuple:
        return cfg.get("runtime"), "runtime"

    def main_table(self, cfg: dict, version: int) -> tuple:
        return {"default_runtime_name": cfg.get("default", "crun"), "runtimes": cfg.get("runtime") or {}}, "(top)"

    def default_runtime(self, cfg: dict, version: int) -> str:
        return cfg.get("default", "crun")

    def default_rule(self, params, node_default):
        return DefaultRule(params.runtime_name)

    def builtin_default_kept(self, version: int) -> bool:
        return False

    # --- plan the edit, and judge it ------------------------------------------------------------------

    def plan_runtime(self, run):
        eff = run.effective()
        name = run.p.runtime_name
        out = Plan(say("runtime.runtime_already_registered", runtime_name=name), subject=f"[runtime.{name}]")
        text = eff.main.text
        if self.runtime_table(eff.data, eff.version, name)[0] is None:
            text = text + _block(run.wanted)
            out.message = say("runtime.write_runtime", distro=NAME, at=eff.main.lab_path, runtime_name=name)
        out.writes.append(run.plan_write(eff.main.lab_path, text.encode()))
        return out

    def runtime_problems(self, run) -> list:
        eff = run.effective()
        table, where = self.runtime_table(eff.data, eff.version, run.p.runtime_name)
        if not isinstance(table, dict):
            return [Problem.of("runtime.missing", eff.main.lab_path, runtime=run.p.runtime_name, header=f"[{where}]",
                               runtime_type=TYPE)]
        if table.get("runtime_type") != TYPE:
            return [Problem.of("runtime.type_wrong", eff.main.lab_path, actual=str(table.get("runtime_type")),
                               expected=TYPE)]
        return []

    def foreign_runtime(self, run, reading):
        return None

    def options_subject(self, run) -> str | None:
        return f"[runtime.{run.p.runtime_name}.options]"

    def options_tables(self, reading, cfg: dict, name: str) -> list:
        return [self.runtime_table(cfg, reading.version, name)]  # one place for a runtime: nothing is misplaced

    def options_problems(self, run) -> list:
        eff = run.effective()
        table, _ = self.runtime_table(eff.data, eff.version, run.p.runtime_name)
        options = (table or {}).get("options")
        if not isinstance(options, dict):
            return [Problem.of("options.missing", eff.main.lab_path, runtime=run.p.runtime_name)]
        problems = []
        if options.get("BinaryName") != run.p.binary_name:
            problems.append(Problem.of("options.binary_name.wrong", eff.main.lab_path,
                                       actual=str(options.get("BinaryName")), binary=run.p.binary_name))
        if options.get("SystemdCgroup") is not run.p.systemd_cgroup:
            problems.append(Problem.of("options.systemd_cgroup.wrong", eff.main.lab_path,
                                       actual=str(options.get("SystemdCgroup")), expected=str(run.p.systemd_cgroup)))
        return problems

    def default_problem(self, run, reading):
        if run.expected.default.holds(reading.data, reading.version):
            return None
        return Problem.of("default.is_runtime", reading.main.lab_path, default=self.default_runtime(reading.data, 1),
                          runtime=run.p.runtime_name)

    def plan_cdi_settings(self, run, notes: list) -> list:
        return []  # toyrt reads CDI specs from its folders always: nothing to turn on

    def cdi_settings_problems(self, run) -> list:
        return []

    def cdi_spec_dirs(self) -> tuple[str, ...]:
        return ("/etc/cdi",)

    def plan_refusal(self, run):
        return None  # no toyrt binary to ask

    # --- ask toyrt itself: there is no binary --------------------------------------------------------------

    def _why(self, run):
        return say("ask.skipped_root_lab_sandbox", root=run.target.root)

    def ask_plan(self, run):
        return Plan(self._why(run))

    def ask_now(self, run):
        return None

    def ask_skipped(self, run):
        return self._why(run)

    def ask_verdict(self, run) -> list:
        return []

    def ask_message(self, run):
        return None

    def ask_evidence(self, run) -> dict[str, str]:
        return {}

    # --- restart: never, in a lab root ---------------------------------------------------------------------

    def restart_decision(self, run, *, changed: bool):
        return Decision("lab", say("containerd.restart.containerd_not_restarted_lab"))

    def restart(self, run, chosen, *, runner=None) -> tuple:
        return chosen, []

    # --- remove: not asked of the toy (mode=remove is containerd's, tests/steps/test_remove.py) ------------

    def plan_removals(self, run, planned: dict[str, bytes]):
        return iter(())

    def still_there(self, run) -> list:
        return []

    def plan_cdi_settings_removal(self, run, planned: dict[str, bytes]) -> list:
        return []

    # --- no pods ----------------------------------------------------------------------------------------

    def pod_plan(self, run):
        return Plan(self._why(run))

    def pod_skipped(self, run):
        return self._why(run)

    def pod_attempt(self, run, *, pending_restart, expected_edits):
        return self._why(run)

    def pod_problems(self, run, reading) -> list:
        return []

    def pod_facts(self, reading) -> dict:
        return {}

    def pod_message(self, run, reading):
        return None

    def pod_lines(self, facts: dict) -> list[str]:
        return []

    def pod_evidence(self, reading) -> dict[str, str]:
        return {}
