"""Known mistakes for "find what is wrong with this node" exercises (`runbook lab-init --mistake KIND ROOT`).

Each kind is one edit of a correctly finished lab, the way a student really gets it wrong (the diagnoses in
runbook_lib/containerd/diagnose.py know every one), and names the step the grader must fail for it. This table
is the one place that says so: tests/fleet/test_mistakes.py grades every kind and checks `step`, and `code`
(the finding code the grader must give) is checked against it too.
"""

from __future__ import annotations

from dataclasses import dataclass

from runbook_lib.findings.messages import Msg

CONFIG = "/etc/containerd/config.toml"
SPEC = "/etc/cdi/nvidia.yaml"
TOOLKIT = "/root/toolkit"
CRI = 'plugins."io.containerd.grpc.v1.cri"'
NVIDIA = f"[{CRI}.containerd.runtimes.nvidia]"
OPTIONS = f"[{CRI}.containerd.runtimes.nvidia.options]"
BINARY = 'BinaryName = "/usr/bin/nvidia-container-runtime"'


@dataclass(frozen=True)
class Edit:
    """Replace `old` by `new` in one file (inside the table under `header` when given); `new=None` deletes it."""
    path: str
    old: str = ""
    new: str | None = ""
    header: str | None = None


@dataclass(frozen=True)
class Mistake:
    kind: str
    name: Msg
    edits: tuple[Edit, ...]
    step: str  # the step id the grader must fail
    code: str | None = None  # the finding code the grader must give (runbook_lib/data/findings.yaml)


def _headers(old: str, new: str) -> tuple[Edit, ...]:
    return (Edit(CONFIG, f"{old}]", f"{new}]"), Edit(CONFIG, f"{old}.options]", f"{new}.options]"))


_NV = f"{CRI}.containerd.runtimes.nvidia"

MISTAKES: tuple[Mistake, ...] = (
    Mistake("unquoted-header", Msg("섹션 헤더의 따옴표 빠뜨림", "section header without its quotes"),
            _headers(f"[{_NV}", "[plugins.io.containerd.grpc.v1.cri.containerd.runtimes.nvidia"), "runtime", "runtime.misplaced.unquoted_header"),
    Mistake("string-boolean", Msg('SystemdCgroup = "true" (문자열로 쓴 불리언)', 'SystemdCgroup = "true" (a string boolean)'),
            (Edit(CONFIG, "SystemdCgroup = true", 'SystemdCgroup = "true"', OPTIONS),), "options", "options.systemd_cgroup.string"),
    Mistake("wrong-version-path", Msg("다른 설정 버전의 경로 (version 2 파일에 plugins.cri)",
                                      "another config version's path (plugins.cri in a version-2 file)"),
            _headers(f"[{_NV}", "[plugins.cri.containerd.runtimes.nvidia"), "runtime", "runtime.misplaced.v1_path"),
    Mistake("misplaced-table", Msg("엉뚱한 곳의 런타임 테이블 (.containerd 빠짐)",
                                   "runtime table in the wrong place (.containerd left out)"),
            _headers(f"[{_NV}", f"[{CRI}.runtimes.nvidia"), "runtime", "runtime.misplaced"),
    Mistake("default-nvidia", Msg("기본 런타임을 nvidia 로 바꿈", "default runtime changed to nvidia"),
            (Edit(CONFIG, 'default_runtime_name = "runc"', 'default_runtime_name = "nvidia"'),), "default", "default.is_runtime"),
    Mistake("handler-mismatch", Msg("runtimeclass.yaml 의 handler 가 런타임 이름과 다름",
                                    "runtimeclass.yaml's handler is not the runtime's name"),
            (Edit(f"{TOOLKIT}/runtimeclass.yaml", "handler: nvidia", "handler: nvidai"),), "runtimeclass", "runtimeclass.handler_not_a_runtime"),
    Mistake("missing-cdi-kind", Msg("CDI 스펙에 kind 가 없음", "the CDI spec has no kind"),
            (Edit(SPEC, "kind: nvidia.com/gpu\n", ""),), "cdi", "cdi.kind_missing"),
    Mistake("missing-report", Msg("report.txt 가 없음", "report.txt is missing"),
            (Edit(f"{TOOLKIT}/report.txt", new=None),), "report", "file.missing"),
    Mistake("binaryname-relative", Msg("BinaryName 이 상대 경로", "BinaryName is a relative path"),
            (Edit(CONFIG, BINARY, 'BinaryName = "nvidia-container-runtime"', OPTIONS),), "options", "options.binary_name.relative"),
    Mistake("runtime-type-typo", Msg("runtime_type 을 runtimetype 으로 잘못 씀", "runtime_type misspelt as runtimetype"),
            (Edit(CONFIG, "runtime_type = ", "runtimetype = ", NVIDIA),), "runtime", "runtime.unknown_key.typo"),
    Mistake("toml-syntax-error", Msg("BinaryName 의 닫는 따옴표 빠뜨림 (TOML 문법 오류)",
                                     "BinaryName's closing quote left out (a TOML syntax error)"),
            (Edit(CONFIG, BINARY, BINARY[:-1], OPTIONS),), "runtime", "toml.unclosed_quote"),
    Mistake("no-version-line", Msg("version = 2 줄을 지움", "the version = 2 line removed"),
            (Edit(CONFIG, "\nversion = 2\n", "\n"),), "runtime", "config.version_missing_v2_tables"),
    Mistake("cri-disabled", Msg("disabled_plugins 에 CRI 플러그인", "the CRI plugin in disabled_plugins"),
            (Edit(CONFIG, "\nversion = 2\n", '\nversion = 2\ndisabled_plugins = ["io.containerd.grpc.v1.cri"]\n'),),
            "runtime", "containerd.cri_disabled"),
    Mistake("systemdcgroup-mismatch", Msg("nvidia 의 SystemdCgroup 이 runc 와 다름",
                                          "nvidia's SystemdCgroup differs from runc's"),
            (Edit(CONFIG, "SystemdCgroup = true", "SystemdCgroup = false", OPTIONS),), "options", "options.systemd_cgroup.wrong"),
    Mistake("duplicate-key", Msg("runtime_type 을 두 번 씀", "runtime_type written twice"),
            (Edit(CONFIG, 'runtime_type = "io.containerd.runc.v2"',
                  'runtime_type = "io.containerd.runc.v2"\n          runtime_type = "io.containerd.runc.v2"', NVIDIA),),
            "runtime", "toml.duplicate"),
    Mistake("missing-default-file", Msg("default.txt 가 없음", "default.txt is missing"),
            (Edit(f"{TOOLKIT}/default.txt", new=None),), "default", "file.missing"),
    Mistake("parsed-wrong", Msg("parsed.txt 의 런타임 목록에 nvidia 가 빠짐", "parsed.txt's runtime list leaves out nvidia"),
            (Edit(f"{TOOLKIT}/parsed.txt", "RUNTIMES=nvidia,runc", "RUNTIMES=runc"),), "parse", "file.differs"),
    Mistake("python-true", Msg("SystemdCgroup = True (파이썬식 대문자 불리언)", "SystemdCgroup = True (Python's capital boolean)"),
            (Edit(CONFIG, "SystemdCgroup = true", "SystemdCgroup = True", OPTIONS),), "runtime", "toml.boolean_spelling"),
    Mistake("typographic-quotes", Msg("BinaryName 의 둥근 따옴표 (웹 페이지에서 복사)", "BinaryName in typographic quotes (copied from a web page)"),
            (Edit(CONFIG, BINARY, BINARY.replace('"', "\u201c", 1).replace('"', "\u201d"), OPTIONS),), "runtime",
            "toml.typographic_quotes"),
    Mistake("options-typo", Msg("BinaryName 을 BinaryPath 로 잘못 씀", "BinaryName misspelt as BinaryPath"),
            (Edit(CONFIG, "BinaryName = ", "BinaryPath = ", OPTIONS),), "options", "options.unknown_key.typo"),
    Mistake("runc-binary-nvidia", Msg("runc 의 options 에 nvidia 의 BinaryName 을 씀 (모든 파드가 nvidia 로 실행)",
                                      "nvidia's BinaryName written into runc's options (every pod runs nvidia)"),
            (Edit(CONFIG, "SystemdCgroup = true", f"SystemdCgroup = true\n            {BINARY}",
                  f"[{CRI}.containerd.runtimes.runc.options]"),), "default", "default.runs_runtime_binary"),
    Mistake("handler-under-spec", Msg("runtimeclass.yaml 의 handler 를 spec: 아래에 씀 (파드 습관)",
                                      "runtimeclass.yaml's handler written under spec: (a Pod's habit)"),
            (Edit(f"{TOOLKIT}/runtimeclass.yaml", "\nhandler: nvidia", "\nspec:\n  handler: nvidia"),), "runtimeclass",
            "runtimeclass.handler_nested"),
)

BY_KIND = {m.kind: m for m in MISTAKES}


def parse_kinds(text: str) -> list[Mistake]:
    """`KIND[,KIND...]` as the Mistakes, in order; an unknown kind is a ValueError naming the known ones."""
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in BY_KIND]
    if unknown or not kinds:
        known = ", ".join(BY_KIND)
        raise ValueError(f"알 수 없는 실수 종류입니다: {', '.join(unknown) or '-'} (가능한 값: {known}; runbook lab-init --list)\n"
                         f"unknown mistake kind: {', '.join(unknown) or '-'} (known kinds: {known}; runbook lab-init --list)")
    return [BY_KIND[k] for k in dict.fromkeys(kinds)]


def _span(text: str, header: str | None) -> tuple[int, int]:
    """Where an edit may apply: the whole file, or the lines of one table (its header to the next header)."""
    if header is None:
        return 0, len(text)
    start = text.find(header)
    if start < 0:
        return 0, 0
    end = start + len(header)
    for line_start in _line_starts(text, end):
        if text[line_start:].lstrip(" \t").startswith("["):
            return start, line_start
    return start, len(text)


def _line_starts(text: str, after: int):
    i = text.find("\n", after)
    while i >= 0:
        yield i + 1
        i = text.find("\n", i + 1)


def apply_edit(text: str, edit: Edit) -> str | None:
    """The text with the edit made, or None when the text has no place for it."""
    start, end = _span(text, edit.header)
    at = text.find(edit.old, start, end)
    if at < 0:
        return None
    return text[:at] + (edit.new or "") + text[at + len(edit.old):]


def is_applied(text: str | None, edit: Edit) -> bool:
    """The edit's result is already there (a second `lab-init` with the same mistakes changes nothing)."""
    if edit.new is None:
        return text is None
    if text is None:
        return False
    start, end = _span(text, edit.header)
    if edit.new and edit.old in edit.new:  # an insertion: the inserted text is there
        return text.find(edit.new, start, end) >= 0
    return text.find(edit.old, start, end) < 0 and (not edit.new or text.find(edit.new, start, end) >= 0)


def listing() -> str:
    """`runbook lab-init --list`: every kind, in both languages, with the step it breaks."""
    from runbook_lib.lab.lessons import LESSONS  # noqa: F401 - step ids are the lessons' keys

    width = max(len(m.kind) for m in MISTAKES)
    lines = ["실수 종류 / mistake kinds (runbook lab-init --mistake KIND[,KIND...] ROOT):"]
    for m in MISTAKES:
        lines.append(f"  {m.kind:<{width}}  {m.name.ko}")
        lines.append(f"  {'':<{width}}  {m.name.en}  → 단계 / step: {m.step}")
    return "\n".join(lines)
