"""The notebook's parameters: their defaults, and the validation that runs right after the parameters cell."""

from __future__ import annotations

import os

import posixpath
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from runbook_lib.cdi.spec import CDI_EXTENSIONS
from runbook_lib.findings.errors import ParameterError
from runbook_lib.k8s.names import dns1123_label_problem, quoted
from runbook_lib.findings.problem import words

MODES = ("apply", "check", "remove")
DISTROS = ("auto", "containerd", "k3s", "rke2", "microk8s", "k0s")
LAYOUTS = ("inplace", "dropin")
DEFAULT_RUNTIMES = ("auto", "runc", "keep")  # auto: keep on a real node (root /), runc in a lab root
SMOKE = ("off", "sandbox", "node")  # the pod step (runbook_lib/steps/pod.py)


@dataclass(frozen=True)
class Parameter:
    """One notebook parameter, defined once: the parameters cell, the validation, the README table and the
    docs are all written from this (tools/build_notebook.py; tests/test_notebook_hygiene.py checks)."""
    name: str
    default: object
    kind: str          # str | bool | path | choice | int
    ko: str            # what it means, in Korean and English (one line each, no '=': papermill drops such lines)
    en: str
    choices: tuple[str, ...] = ()

    @property
    def type_name(self) -> str:
        return self.kind if self.kind in ("bool", "int") else "str"

    def cell_line(self) -> str:
        return f"{self.name} = {self.default!r}  # {self.type_name}: {self.ko} / {self.en}"


PARAMETERS = (
    Parameter("root", "", "str", "대상 루트 (비우면 저장소 안의 lab-root 샌드박스, 실제 노드는 /)",
              "target root (empty: the lab-root sandbox, / on a real node)"),
    Parameter("mode", "apply", "choice", "apply 는 적용, check 는 검사만 하고 아무것도 쓰지 않음, remove 는 런북이 더한 것만 되돌림",
              "apply writes, check only inspects and writes nothing, remove takes out what the runbook added", MODES),
    Parameter("runtime_name", "nvidia", "str", "등록할 런타임 이름이자 RuntimeClass handler (DNS-1123 레이블)",
              "runtime name, also the RuntimeClass handler (a DNS-1123 label)"),
    Parameter("binary_name", "/usr/bin/nvidia-container-runtime", "path", "런타임이 실행할 바이너리의 절대 경로",
              "absolute path of the runtime binary"),
    Parameter("systemd_cgroup", True, "bool", "systemd cgroup 드라이버 사용 여부 (kubelet 과 같아야 함)",
              "use the systemd cgroup driver (must match the kubelet)"),
    Parameter("config_path", "/etc/containerd/config.toml", "path", "containerd 설정 파일", "containerd's config file"),
    Parameter("base_config", "/opt/fixtures/gpu-airgap/containerd/config.toml.base", "path",
              "설정이 없을 때 복사할 기본 설정 (없으면 패키지 사본)", "base config copied when there is none (else the packaged copy)"),
    Parameter("cdi_spec", "/etc/cdi/nvidia.yaml", "path", "CDI 스펙 파일", "the CDI spec file"),
    Parameter("toolkit_dir", "/root/toolkit", "path", "실습 결과 파일을 둘 폴더", "folder for the lab's result files"),
    Parameter("layout", "inplace", "choice", "inplace 는 config.toml 을 직접 수정, dropin 은 conf.d 드롭인 파일",
              "inplace edits config.toml, dropin writes a conf.d drop-in", LAYOUTS),
    Parameter("restart_containerd", False, "bool", "실제 노드에서 containerd 재시작 여부", "restart containerd on a real node"),
    Parameter("containerd_bin", "", "str", "containerd 바이너리 경로 (주면 containerd 가 직접 설정을 읽어 확인)",
              "containerd binary to ask how it reads the config"),
    Parameter("replace_runtime", False, "bool", "같은 이름의 런타임이 다른 바이너리로 있을 때 바꿀지 (기본은 거부)",
              "replace a runtime of the same name that runs another binary (refused by default)"),
    Parameter("distro", "auto", "choice", "노드의 배포판 (auto 는 root 아래에서 알아냄, docs/DISTRIBUTIONS.md)",
              "the node's distribution (auto: found under the root, docs/DISTRIBUTIONS.md)", DISTROS),
    Parameter("variants", False, "bool", "GPU Operator 처럼 nvidia-cdi, nvidia-legacy 런타임과 RuntimeClass 도 등록",
              "also register the GPU Operator-style nvidia-cdi and nvidia-legacy runtimes with their RuntimeClasses"),
    Parameter("enable_cdi", False, "bool", "containerd 의 enable_cdi 와 cdi_spec_dirs 를 CDI 스펙 폴더에 맞춰 설정",
              "set containerd's enable_cdi and cdi_spec_dirs for the CDI spec's folder"),
    Parameter("default_runtime", "auto", "choice",
              "기본 런타임의 규칙: runc 는 실습의 규칙(기본 런타임은 runc 여야 함), keep 은 노드의 기본 런타임을 알려만 주고 "
              "바꾸지도 바꾸라고 하지도 않음, auto 는 root 가 / 이면 keep, 실습 루트면 runc",
              "the default runtime's rule: runc is the lab's (the default must be runc), keep reports the node's default "
              "and never changes it nor advises against it, auto is keep when root is / and runc in a lab root",
              DEFAULT_RUNTIMES),
    Parameter("time_limit", 300, "int", "실행 시간 한도(초): 셀이 실행되는 동안만 셈, 넘으면 그 자리에서 멈춤 (runbook_lib/engine/limits.py)",
              "time limit in seconds, counted while cells run; the run stops where it is beyond it (runbook_lib/engine/limits.py)"),
    Parameter("memory_limit", 768, "int", "커널의 메모리 한도(MiB): 넘으면 그 자리에서 멈춤",
              "the kernel's memory limit in MiB; the run stops where it is beyond it"),
    Parameter("smoke", "off", "choice", "재시작 뒤 handler 로 파드를 띄워 증명 (off, sandbox 는 버리는 containerd, node 는 노드의 containerd)",
              "after the restart, prove it with a pod through the handler (off; sandbox: a throw-away containerd; node: the node's)",
              SMOKE),
    Parameter("smoke_timeout", 120, "int", "파드 확인에 쓸 최대 시간(초), 넘으면 지우고 실패", "seconds the pod check may take; past it, cleaned up and failed"),
    Parameter("cri_endpoint", "", "str", "smoke node 가 쓸 containerd CRI 소켓 (비우면 배포판의 기본 소켓)",
              "the containerd CRI socket for smoke node (empty: the distribution's)"),
    Parameter("smoke_image", "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04", "str", "smoke node 컨테이너의 이미지 (노드에 이미 있어야 함)",
              "the image of smoke node's container (already on the node)"),
    Parameter("smoke_command", "nvidia-smi -L", "str", "smoke node 컨테이너에서 실행할 명령", "the command smoke node's container runs"),
    Parameter("smoke_pull", False, "bool", "smoke_image 가 노드에 없으면 받을지 (기본은 받지 않음)", "pull smoke_image when the node lacks it (never by default)"),
)

# The lab's absolute paths, resolved under `root` at run time.
DEFAULTS = {p.name: p.default for p in PARAMETERS}


def markdown_table() -> str:
    """The README's parameter table."""
    def default(p: Parameter) -> str:
        return '`""` → `lab-root/`' if p.name == "root" else f"`{p.default}`" if p.default != "" else '`""`'
    rows = [f"| `{p.name}` | {default(p)} | {p.ko} / {p.en} |" for p in PARAMETERS]
    return "\n".join(["| 이름 / name | 기본값 / default | 뜻 / meaning |", "|---|---|---|", *rows])


@dataclass(frozen=True)
class Params:
    root: str
    mode: str
    runtime_name: str
    binary_name: str
    systemd_cgroup: bool
    config_path: str
    base_config: str
    cdi_spec: str
    toolkit_dir: str
    layout: str = "inplace"
    restart_containerd: bool = False
    containerd_bin: str = ""
    replace_runtime: bool = False
    distro: str = "auto"
    variants: bool = False
    enable_cdi: bool = False
    default_runtime: str = "auto"
    time_limit: int = 300
    memory_limit: int = 768

    @property
    def keeps_default(self) -> bool:
        """The node's default runtime is the node's (default_runtime keep, or auto on a real node): reported, never
        changed, never advised against; in a lab root (auto) or with runc, the lab's rule: it must be runc."""
        if self.default_runtime == "auto":
            return os.path.realpath(self.root) == "/"
        return self.default_runtime == "keep"
    smoke: str = "off"
    smoke_timeout: int = 120
    cri_endpoint: str = ""
    smoke_image: str = "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"
    smoke_command: str = "nvidia-smi -L"
    smoke_pull: bool = False

    @property
    def check_only(self) -> bool:
        return self.mode == "check"

    @property
    def removing(self) -> bool:
        return self.mode == "remove"

    def as_dict(self) -> dict:
        return asdict(self)


def default_lab_root() -> Path:
    """The embedded sandbox root: <checkout>/lab-root in a source checkout, else ./runbook-lab-root.
    Never '/': configuring a real node is always an explicit `-p root /`."""
    checkout = Path(__file__).resolve().parents[2]  # runbook_lib/engine/params.py
    if (checkout / "notebooks" / "run.ipynb").exists():
        return checkout / "lab-root"
    return Path.cwd() / "runbook-lab-root"


def _error(code: str, **values) -> ParameterError:
    """A parameter error whose words come from the finding catalog (runbook_lib/data/findings.yaml)."""
    what, fix, _ = words(code, **values)
    return ParameterError(what, fix, code=code)


def _bool(name: str, value) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"  # papermill passes `-p x true` as the string "true"
    raise _error("parameter.not_boolean", name=name, value=quoted(value))


def _str(name: str, value) -> str:
    if not isinstance(value, str):
        raise _error("parameter.not_string", name=name, value=quoted(value), type=type(value).__name__)
    return value


EXAMPLES = {"root": "/srv/lab-root", "containerd_bin": "/usr/bin/containerd",
            "cri_endpoint": "/run/containerd/containerd.sock"}  # where the default is ""


def _abs(name: str, value: str) -> str:
    if not value.startswith("/"):
        raise _error("parameter.not_absolute", name=name, value=quoted(value),
                     example=DEFAULTS.get(name) or EXAMPLES.get(name, "/usr/bin/..."))
    if "\x00" in value or "\n" in value:
        raise _error("parameter.forbidden_character", name=name, value=quoted(value))
    return value


def _choice(name: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise _error("parameter.unknown_choice", name=name, value=quoted(value), choices=", ".join(choices),
                     first=choices[0])
    return value


def _int(name: str, value) -> int:
    """A positive whole number; papermill passes `-p time_limit 600` as an int, a -f file may give "600"."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise _error("parameter.not_positive_int", name=name, value=quoted(value))
    return value


def _value(p: Parameter, value):
    if p.kind == "bool":
        return _bool(p.name, value)
    if p.kind == "int":
        return _int(p.name, value)
    value = _str(p.name, value)
    if p.kind == "path":
        return _abs(p.name, value)
    if p.kind == "choice":
        return _choice(p.name, value, p.choices)
    return value


def validate(**raw) -> Params:
    """Turn the notebook's variables into Params, or stop with a message that says how to fix the value."""
    unknown = sorted(set(raw) - set(DEFAULTS))
    if unknown:
        raise _error("parameter.unknown", names=", ".join(unknown), valid=", ".join(DEFAULTS))
    values = {p.name: _value(p, raw.get(p.name, p.default)) for p in PARAMETERS}
    values["root"] = values["root"] or str(default_lab_root())
    if not values["root"].startswith("/"):
        _abs("root", values["root"])
    problem = dns1123_label_problem(values["runtime_name"])
    if problem:
        raise _error("parameter.runtime_name", problem=problem)
    if not values["cdi_spec"].endswith(CDI_EXTENSIONS):  # the CDI scan skips any other name (podman: unresolvable)
        raise _error("parameter.cdi_spec_extension", value=quoted(values["cdi_spec"]),
                     suggestion=posixpath.splitext(values["cdi_spec"])[0] + ".yaml")
    for name in ("containerd_bin", "cri_endpoint"):
        if values[name] and not values[name].removeprefix("unix://").startswith("/"):
            _abs(name, values[name])
    if not values["smoke_command"].strip():
        raise _error("parameter.empty", name="smoke_command", example=DEFAULTS["smoke_command"])
    return Params(**values)


PARAM_NAMES = tuple(f.name for f in fields(Params))
