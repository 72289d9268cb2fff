"""The notebook's parameters: their defaults, and the validation that runs right after the parameters cell."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from pathlib import Path

from .errors import ParameterError
from .messages import Msg
from .names import dns1123_label_problem

MODES = ("apply", "check")
LAYOUTS = ("inplace", "dropin")

# The lab's absolute paths, resolved under `root` at run time.
DEFAULTS = {
    "root": "",
    "mode": "apply",
    "runtime_name": "nvidia",
    "binary_name": "/usr/bin/nvidia-container-runtime",
    "systemd_cgroup": True,
    "config_path": "/etc/containerd/config.toml",
    "base_config": "/opt/fixtures/gpu-airgap/containerd/config.toml.base",
    "cdi_spec": "/etc/cdi/nvidia.yaml",
    "toolkit_dir": "/root/toolkit",
    "layout": "inplace",
    "restart_containerd": False,
    "containerd_bin": "",
}


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

    @property
    def check_only(self) -> bool:
        return self.mode == "check"

    def as_dict(self) -> dict:
        return asdict(self)


def default_lab_root() -> Path:
    """The embedded sandbox root: <checkout>/lab-root in a source checkout, else ./runbook-lab-root.
    Never '/': configuring a real node is always an explicit `-p root /`."""
    checkout = Path(__file__).resolve().parents[1]
    if (checkout / "notebooks" / "run.ipynb").exists():
        return checkout / "lab-root"
    return Path.cwd() / "runbook-lab-root"


def _bool(name: str, value) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"  # papermill passes `-p x true` as the string "true"
    raise ParameterError(
        Msg(f"{name} 는 true 나 false 여야 합니다. 받은 값: {value!r}", f"{name} must be true or false; got {value!r}"),
        Msg(f"-p {name} True 또는 -p {name} False 로 주세요.", f"pass -p {name} True or -p {name} False."))


def _str(name: str, value) -> str:
    if not isinstance(value, str):
        raise ParameterError(
            Msg(f"{name} 는 문자열이어야 합니다. 받은 값: {value!r} ({type(value).__name__})",
                f"{name} must be a string; got {value!r} ({type(value).__name__})"),
            Msg(f"YAML 파라미터 파일에서는 따옴표로 감싸세요: {name}: \"...\"",
                f"quote it in a YAML parameter file: {name}: \"...\""))
    return value


def _abs(name: str, value: str) -> str:
    if not value.startswith("/"):
        raise ParameterError(
            Msg(f"{name} 는 '/' 로 시작하는 절대 경로여야 합니다. 받은 값: {value!r}",
                f"{name} must be an absolute path starting with '/'; got {value!r}"),
            Msg(f"실습 문서의 경로처럼 적으세요. 예: {DEFAULTS.get(name) or '/usr/bin/...'}",
                f"write it as the lab does, e.g. {DEFAULTS.get(name) or '/usr/bin/...'}"))
    if "\x00" in value or "\n" in value:
        raise ParameterError(Msg(f"{name} 에 쓸 수 없는 문자가 있습니다.", f"{name} contains a forbidden character."),
                             Msg("경로를 다시 적으세요.", "write the path again."))
    return value


def _choice(name: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ParameterError(
            Msg(f"{name} 값 {value!r} 을(를) 알 수 없습니다. 가능한 값: {', '.join(choices)}",
                f"unknown {name} {value!r}; valid values: {', '.join(choices)}"),
            Msg(f"-p {name} {choices[0]} 처럼 주세요.", f"pass e.g. -p {name} {choices[0]}."))
    return value


def validate(**raw) -> Params:
    """Turn the notebook's variables into Params, or stop with a message that says how to fix the value."""
    unknown = sorted(set(raw) - set(DEFAULTS))
    if unknown:
        raise ParameterError(
            Msg(f"알 수 없는 파라미터: {', '.join(unknown)}", f"unknown parameter(s): {', '.join(unknown)}"),
            Msg(f"쓸 수 있는 파라미터: {', '.join(DEFAULTS)}", f"valid parameters: {', '.join(DEFAULTS)}"))
    values = {**DEFAULTS, **raw}
    root = _str("root", values["root"]) or str(default_lab_root())
    if not root.startswith("/"):
        _abs("root", root)
    name = _str("runtime_name", values["runtime_name"])
    problem = dns1123_label_problem(name)
    if problem:
        ko, _, en = problem.partition("\n")
        raise ParameterError(Msg(f"runtime_name: {ko}", f"runtime_name: {en}"),
                             Msg("-p runtime_name nvidia 처럼 소문자 이름을 주세요.",
                                 "pass a lowercase name, e.g. -p runtime_name nvidia."))
    params = Params(
        root=root,
        mode=_choice("mode", _str("mode", values["mode"]), MODES),
        runtime_name=name,
        binary_name=_abs("binary_name", _str("binary_name", values["binary_name"])),
        systemd_cgroup=_bool("systemd_cgroup", values["systemd_cgroup"]),
        config_path=_abs("config_path", _str("config_path", values["config_path"])),
        base_config=_abs("base_config", _str("base_config", values["base_config"])),
        cdi_spec=_abs("cdi_spec", _str("cdi_spec", values["cdi_spec"])),
        toolkit_dir=_abs("toolkit_dir", _str("toolkit_dir", values["toolkit_dir"])),
        layout=_choice("layout", _str("layout", values["layout"]), LAYOUTS),
        restart_containerd=_bool("restart_containerd", values["restart_containerd"]),
        containerd_bin=_str("containerd_bin", values["containerd_bin"]),
    )
    if params.containerd_bin and not params.containerd_bin.startswith("/"):
        _abs("containerd_bin", params.containerd_bin)
    return params


PARAM_NAMES = tuple(f.name for f in fields(Params))
