"""What each step teaches: the lesson a mistake in that step points a student (and the instructor) back to.

Keyed by step id, as the step records name them. An id this table does not know (a step added later) still
gets a lesson: the generic one, which names the step by its own title.
"""

from __future__ import annotations

from runbook_lib.findings.messages import Msg

LESSONS: dict[str, Msg] = {
    "prepare": Msg("1단계: /etc/containerd 폴더와 기본 설정. 이미 있는 설정은 덮어쓰지 않습니다.",
                   "Step 1: the /etc/containerd folder and the base config; an existing config is never overwritten."),
    "runtime": Msg("2단계: 설정 버전에 맞는 경로에 런타임 테이블을 추가합니다 (버전 2는 "
                   "plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia, 헤더의 따옴표 포함).",
                   "Step 2: add the runtime table under the path of the config's version (version 2: "
                   "plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia, quotes included)."),
    "options": Msg("3단계: BinaryName 은 절대 경로, SystemdCgroup 은 따옴표 없는 TOML 불리언이며 기본 런타임과 같아야 합니다.",
                   "Step 3: BinaryName is an absolute path; SystemdCgroup is a TOML boolean without quotes, the same as "
                   "the default runtime's."),
    "default": Msg("4단계: 기본 런타임은 runc 로 둡니다. GPU 파드만 RuntimeClass 로 nvidia 를 고릅니다.",
                   "Step 4: the default runtime stays runc; only GPU pods choose nvidia, through a RuntimeClass."),
    "parse": Msg("5단계: 설정을 tomllib 으로 다시 읽어 버전과 런타임 목록을 parsed.txt 에 적습니다.",
                 "Step 5: read the config back with tomllib and write its version and runtimes to parsed.txt."),
    "cdi": Msg("6단계: CDI 스펙에는 kind: nvidia.com/gpu 가 있어야 하고, 최상위 키를 cdi-keys.txt 에 적습니다.",
               "Step 6: the CDI spec needs kind: nvidia.com/gpu; its top-level keys go to cdi-keys.txt."),
    "runtimeclass": Msg("7단계: RuntimeClass 의 handler 는 containerd 설정의 런타임 이름과 같아야 합니다.",
                        "Step 7: the RuntimeClass handler must be the name of a runtime in containerd's config."),
    "report": Msg("8단계: report.txt 의 모든 값은 파일에서 다시 읽은 값이어야 합니다.",
                  "Step 8: every value in report.txt is read back from the files."),
    "containerd": Msg("9단계: containerd 자신이 설정을 어떻게 읽는지 확인합니다 (config dump).",
                      "Step 9: ask containerd itself how it reads the config (config dump)."),
    "restart": Msg("설정을 바꾼 뒤에는 containerd 를 재시작해야 적용됩니다.",
                   "containerd must be restarted for a changed config to take effect."),
}


def lesson(step_id: str | None, title: dict | None = None) -> Msg:
    """The lesson of a step; for an unknown id, one built from the step's own title."""
    if step_id in LESSONS:
        return LESSONS[step_id]
    title = title or {}
    return Msg(f"이 단계의 설명을 다시 읽어 보세요: {title.get('ko') or step_id}",
               f"read this step's explanation again: {title.get('en') or step_id}")
