"""What a pod through the handler proved, and the one verdict on it (the pod step's and its check cell's).

`sandbox` and `node` (sandbox.py, node.py) each return a Smoke: the facts a person reads in the
notebook (the handler, the sandbox id, the binary's calls, the container's output), the findings the run
itself met (containerd's refusals, quoted), and what was left behind after the cleanup. ``judge`` turns the
facts into findings by the same rules the check cell states as its assertions.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from runbook_lib.findings.problem import Problem, say

GPU_LINE = re.compile(r"^GPU \d+:", re.M)
# 2.x: "toml: cannot decode TOML string into struct field options.Options.SystemdCgroup of type bool"
STRING_INTO_BOOL = re.compile(r"cannot decode TOML string into struct field [\w.]*?(\w+) of type bool")
SANDBOX, NODE = "sandbox", "node"


@dataclass
class Smoke:
    mode: str
    facts: dict = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def fail(self, code: str, **values) -> "Smoke":
        self.problems.append(Problem.of(code, **values))
        return self


def flag_words(flag: bool) -> dict[str, str]:
    """How the binary was called, as a finding's value: {ko, en}."""
    return say("pod.flag.with" if flag else "pod.flag.without").as_dict()


def judge(smoke: Smoke, p) -> list[Problem]:
    """The findings of a pod run; what the check cell asserts, one rule per assertion."""
    facts, found = smoke.facts, list(smoke.problems)
    if not found:
        found += _sandbox(facts, p) if smoke.mode == SANDBOX else _node(facts)
    if facts.get("left"):
        found.append(Problem.of("pod.left_behind", left=", ".join(facts["left"])))
    return found


def _sandbox(facts: dict, p) -> list[Problem]:
    out = []
    handler, binary = facts.get("handler"), facts.get("binary") or "-"
    if handler != p.runtime_name:
        out.append(Problem.of("pod.handler_differs", handler=handler, runtime=p.runtime_name))
    if not facts.get("binary_called"):
        out.append(Problem.of("pod.binary_not_called", binary=binary, handler=handler))
    elif facts.get("systemd_cgroup_flag") is not p.systemd_cgroup:
        seen = flag_words(bool(facts.get("systemd_cgroup_flag")))
        out.append(Problem.of("pod.flag_differs", binary=binary, handler=handler, seen=seen,
                              wanted=str(p.systemd_cgroup).lower(), expected=str(p.systemd_cgroup).lower()))
    if facts.get("default_ran_it"):
        out.append(Problem.of("pod.default_ran_it", default=facts.get("default_runtime"), binary=binary))
    return out


def _node(facts: dict) -> list[Problem]:
    out = []
    command, output = facts.get("command"), (facts.get("output") or "").strip() or "-"
    if facts.get("exit_code") != 0:
        out.append(Problem.of("pod.node.exit_code", command=command, exit_code=facts.get("exit_code"), output=output))
    elif not facts.get("gpu_lines"):
        out.append(Problem.of("pod.node.no_gpu", command=command, output=output))
    probe = facts.get("cdi_probe")
    if probe is None:
        return out
    devices = ", ".join(facts.get("cdi_devices") or [])
    if probe["exit_code"] != 0:
        out.append(Problem.of("pod.node.cdi_probe_failed", devices=devices, image=facts.get("image"),
                              exit_code=probe["exit_code"], output=(probe["output"] or "").strip()[-400:] or "-"))
    elif facts.get("cdi_missing"):
        out.append(Problem.of("pod.node.cdi_edits_missing", devices=devices, missing=", ".join(facts["cdi_missing"]),
                              spec=facts.get("cdi_spec") or "-", enabled=str(facts.get("cdi_enabled")).lower()))
    return out


def gpu_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if GPU_LINE.match(line)]


def classify_refusal(said: str, *, handler: str, runtimes: list[str], runtime: str, runtime_type) -> Problem:
    """containerd's refusal of a pod, as the catalog's finding that explains it (its words kept)."""
    if "Can't convert" in said and "to bool" in said:  # containerd 1.x (go-toml v1)
        key = "SystemdCgroup" if "SystemdCgroup" in said or "true(string)" in said else "options"
        return Problem.of("pod.rejected.string_boolean", key=key, said=said)
    typed = STRING_INTO_BOOL.search(said)  # containerd 2.x (go-toml v2) names the option's field
    if typed:
        return Problem.of("pod.rejected.string_boolean", key=typed.group(1), said=said)
    if "no runtime for" in said:
        return Problem.of("pod.rejected.no_runtime", handler=handler, runtimes=", ".join(runtimes) or "-",
                          runtime=runtime, said=said)
    if "binary not installed" in said or "containerd-shim-" in said:
        return Problem.of("pod.rejected.runtime_type", runtime_type=runtime_type, said=said)
    return Problem.of("pod.rejected.other", handler=handler, said=said)
