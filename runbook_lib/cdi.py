"""The CDI spec (/etc/cdi/nvidia.yaml): build a minimal one, read an existing one, list its top-level keys."""

from __future__ import annotations

import yaml

from .errors import ConfigError
from .messages import Msg

CDI_VERSION = "0.5.0"  # the newest version podman 4.3 (Debian 12) accepts; containerd 1.6+ reads it too
KIND = "nvidia.com/gpu"


def build_minimal_spec() -> str:
    """A small valid spec for a node (or lab) that has none yet. On a real node, `nvidia-ctk cdi generate`
    writes the full one with every GPU and library; this keeps the lab's structure and passes validation."""
    return (
        "# Minimal CDI spec written by the nvidia runtime runbook.\n"
        "# On a GPU node, replace it with `nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml`.\n"
        f'cdiVersion: "{CDI_VERSION}"\n'
        f"kind: {KIND}\n"
        "devices:\n"
        "  - name: all\n"
        "    containerEdits:\n"
        "      deviceNodes:\n"
        "        - path: /dev/nvidia0\n"
        "containerEdits:\n"
        "  deviceNodes:\n"
        "    - path: /dev/nvidiactl\n"
        "    - path: /dev/nvidia-uvm\n"
        "  env:\n"
        "    - NVIDIA_VISIBLE_DEVICES=void\n"
    )


def load_spec(text: str, lab_path: str) -> dict:
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ConfigError(
            Msg(f"CDI 스펙을 YAML 로 읽을 수 없습니다: {getattr(exc, 'problem', exc)}",
                f"the CDI spec is not readable as YAML: {getattr(exc, 'problem', exc)}"),
            Msg("들여쓰기와 콜론(:) 뒤의 공백을 확인하세요. 다시 만들려면 파일을 옮겨 두고 다시 실행하세요.",
                "check the indentation and the space after each colon; to start over, move the file away and run again."),
            path=lab_path, line=mark.line + 1 if mark else None, col=mark.column + 1 if mark else None) from None
    if not isinstance(doc, dict):
        raise ConfigError(Msg("CDI 스펙이 매핑(키: 값) 문서가 아닙니다.", "the CDI spec is not a mapping document."),
                          Msg("cdiVersion, kind, devices 키를 가진 YAML 매핑으로 적으세요.",
                              "write it as a YAML mapping with cdiVersion, kind and devices."), path=lab_path)
    return doc


def top_level_keys(text: str) -> list[str]:
    """Top-level keys in file order (PyYAML keeps the order of a mapping)."""
    doc = yaml.safe_load(text)
    return [str(k) for k in doc] if isinstance(doc, dict) else []


def spec_problems(doc: dict, lab_path: str) -> list[tuple[Msg, Msg]]:
    """(what, fix) pairs: the kind the runbook needs, then the CDI rules (schema and reference library)."""
    problems = []
    if doc.get("kind") != KIND:
        problems.append((Msg(f"kind 가 {doc.get('kind')!r} 입니다 ({KIND} 이어야 합니다).",
                             f"kind is {doc.get('kind')!r} (expected {KIND})."), Msg(f"kind: {KIND}", f"kind: {KIND}")))
    try:
        from .cdi_validate import validate_spec
    except ImportError:  # pragma: no cover - present in every release; absent only mid-development
        return problems
    for finding in validate_spec(doc):
        problems.append(_finding_msgs(finding))
    return problems


def _finding_msgs(finding) -> tuple[Msg, Msg]:
    if isinstance(finding, tuple):
        return finding
    ko = getattr(finding, "ko", None) or getattr(getattr(finding, "message", None), "ko", str(finding))
    en = getattr(finding, "en", None) or getattr(getattr(finding, "message", None), "en", str(finding))
    where = getattr(finding, "path", "")
    fix = getattr(finding, "fix", None)
    what = Msg(f"{where}: {ko}" if where else ko, f"{where}: {en}" if where else en)
    return what, fix if isinstance(fix, Msg) else Msg("CDI 스펙 규칙에 맞게 고치세요.", "correct it to the CDI spec rules.")
