"""A pod run's facts as the notebook shows them: the handler, the sandbox id, the binary that ran (the
stand-in's record of how containerd's shim called it) and the container's output."""
from __future__ import annotations

from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import bilingual


def _subcommand(call: str) -> str:
    """`--root … --systemd-cgroup create --bundle <tmp>/… <id>` → `--systemd-cgroup create <id>`: the flags
    that matter and what the shim asked for, short enough to read."""
    words = call.split()
    for i, word in enumerate(words):
        if word in ("create", "start", "kill", "delete", "state", "exec"):
            flags = [w for w in words[:i] if w == "--systemd-cgroup"]
            rest = [w if len(w) < 20 else w[:12] + "…" for w in words[i + 1:]
                    if not w.startswith(("<tmp>", "/")) and w not in ("--bundle", "--pid-file")]
            return " ".join(flags + [word] + rest)
    return call


def _said(code: str) -> str:
    return bilingual(say(code))


def lines(facts: dict) -> list[str]:
    out = []
    sandbox = facts.get("sandbox_id") or "-"
    out.append(f"{_said('pod.show.handler')}: {facts.get('handler') or '-'}    {_said('pod.show.sandbox')}: {sandbox}")
    if facts.get("mode") == "sandbox":
        out.append(f"containerd: {facts.get('containerd') or '-'} ({_said('pod.show.throw_away')})")
        out.append(f"BinaryName: {facts.get('binary') or '-'} → {_said('pod.show.stand_in')} {facts.get('stand_in') or '-'}")
        calls = [c for c in facts.get("calls", []) if sandbox != "-" and sandbox in c]
        out.append(f"{_said('pod.show.calls')}:")
        out += [f"  {_subcommand(c)}" for c in calls] or [f"  ({_said('pod.show.never_called')})"]
        if not facts.get("systemd_here", True) and facts.get("systemd_cgroup_flag"):
            out.append(f"  ({_said('pod.show.no_systemd')})")
        default = facts.get("default_sandbox_id")
        ran = _said("pod.show.default_ran" if facts.get("default_ran_it") else "pod.show.default_did_not_run")
        out.append(f"{_said('pod.show.default_runtime')} {facts.get('default_runtime') or '-'}: pod {default or '-'} — {ran}")
    else:
        out.append(f"CRI: {facts.get('endpoint') or '-'}    {_said('pod.show.image')}: {facts.get('image') or '-'}")
        if facts.get("cdi_devices"):
            out.append(f"CDI: {', '.join(facts['cdi_devices'])}")
        out.append(f"$ {facts.get('command') or '-'}    {_said('pod.show.exit_code')}: {facts.get('exit_code')}")
        out += [f"  {line}" for line in (facts.get("output") or "").splitlines()] or [f"  ({_said('word.no_output')})"]
        probe = facts.get("cdi_probe")
        if probe is not None:
            out.append(f"CDI containerEdits ({facts.get('cdi_spec') or '-'}, enable_cdi "
                       f"{str(facts.get('cdi_enabled')).lower()}): {_said('pod.show.probe')} exit {probe['exit_code']}")
            out.append(f"  {_said('pod.show.arrived')}: " + (", ".join(probe["arrived"]) or _said("word.none")))
            out.append(f"  {_said('pod.show.missing')}: " + (", ".join(facts.get("cdi_missing") or []) or _said("word.none")))
    left = facts.get("left") or []
    out.append(f"{_said('pod.show.left_behind')}: " + (", ".join(left) if left else _said("word.nothing")))
    return out
