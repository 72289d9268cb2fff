"""A pod run's facts as the notebook shows them: the handler, the sandbox id, the binary that ran (the
stand-in's record of how containerd's shim called it) and the container's output."""
from __future__ import annotations


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


def lines(facts: dict) -> list[str]:
    out = []
    sandbox = facts.get("sandbox_id") or "-"
    out.append(f"handler / 핸들러: {facts.get('handler') or '-'}    pod sandbox / 파드 샌드박스: {sandbox}")
    if facts.get("mode") == "sandbox":
        out.append(f"containerd: {facts.get('containerd') or '-'} (버리는 데몬 / throw-away daemon)")
        out.append(f"BinaryName: {facts.get('binary') or '-'} → 대역 / stand-in {facts.get('stand_in') or '-'}")
        calls = [c for c in facts.get("calls", []) if sandbox != "-" and sandbox in c]
        out.append("containerd 의 shim 이 부른 방식 / how containerd's shim called it:")
        out += [f"  {_subcommand(c)}" for c in calls] or ["  (부르지 않음 / never called)"]
        if not facts.get("systemd_here", True) and facts.get("systemd_cgroup_flag"):
            out.append("  (이 기계에는 systemd 가 없어 대역이 --systemd-cgroup 을 기록만 하고 runc 에는 빼고 넘깁니다 / "
                       "no systemd on this machine: the stand-in records --systemd-cgroup and hands over to runc without it)")
        default = facts.get("default_sandbox_id")
        ran = "거쳤습니다 / went through it" if facts.get("default_ran_it") else "거치지 않았습니다 / did not go through it"
        out.append(f"기본 런타임 / default runtime {facts.get('default_runtime') or '-'}: pod {default or '-'} — {ran}")
    else:
        out.append(f"CRI: {facts.get('endpoint') or '-'}    image / 이미지: {facts.get('image') or '-'}")
        if facts.get("cdi_devices"):
            out.append(f"CDI: {', '.join(facts['cdi_devices'])}")
        out.append(f"$ {facts.get('command') or '-'}    exit / 종료 코드: {facts.get('exit_code')}")
        out += [f"  {line}" for line in (facts.get("output") or "").splitlines()] or ["  (출력 없음 / no output)"]
        probe = facts.get("cdi_probe")
        if probe is not None:
            out.append(f"CDI containerEdits ({facts.get('cdi_spec') or '-'}, enable_cdi "
                       f"{str(facts.get('cdi_enabled')).lower()}): 확인 컨테이너 / probe container exit {probe['exit_code']}")
            out.append("  들어온 것 / arrived: " + (", ".join(probe["arrived"]) or "없음 / none"))
            out.append("  들어오지 않은 것 / missing: " + (", ".join(facts.get("cdi_missing") or []) or "없음 / none"))
    left = facts.get("left") or []
    out.append("남은 것 / left behind: " + (", ".join(left) if left else "없음 / nothing"))
    return out
