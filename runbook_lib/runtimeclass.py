"""The Kubernetes RuntimeClass that lets GPU pods opt in to the runtime: build it, read it back."""

from __future__ import annotations

import yaml

from .errors import ConfigError
from .messages import Msg

API_VERSION = "node.k8s.io/v1"
KIND = "RuntimeClass"


def build_runtimeclass(name: str) -> str:
    """metadata.name is what pods write in runtimeClassName; handler is the containerd runtime's name."""
    return (
        "# GPU pods opt in with `runtimeClassName: " + name + "`; the handler must equal the runtime's name\n"
        "# in containerd's config (runtimes." + name + "), or pods fail with RunContainerError.\n"
        f"apiVersion: {API_VERSION}\n"
        f"kind: {KIND}\n"
        "metadata:\n"
        f"  name: {name}\n"
        f"handler: {name}\n"
    )


def load_runtimeclass(text: str, lab_path: str) -> dict:
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ConfigError(
            Msg(f"YAML 로 읽을 수 없습니다: {getattr(exc, 'problem', exc)}", f"not readable as YAML: {getattr(exc, 'problem', exc)}"),
            Msg("들여쓰기와 콜론(:) 뒤의 공백을 확인하세요.", "check the indentation and the space after each colon."),
            path=lab_path, line=mark.line + 1 if mark else None, col=mark.column + 1 if mark else None) from None
    if not isinstance(doc, dict):
        raise ConfigError(Msg("RuntimeClass 문서가 매핑(키: 값)이 아닙니다.", "the RuntimeClass document is not a mapping."),
                          Msg("apiVersion, kind, metadata, handler 네 키를 적으세요.",
                              "write the four keys apiVersion, kind, metadata and handler."), path=lab_path)
    return doc


def runtimeclass_problems(doc: dict, runtime_name: str) -> list[tuple[Msg, Msg]]:
    """(what is wrong, how to fix it) for each difference from what the runbook expects."""
    problems = []
    if doc.get("apiVersion") != API_VERSION:
        problems.append((Msg(f"apiVersion 이 {doc.get('apiVersion')!r} 입니다 ({API_VERSION} 이어야 합니다).",
                             f"apiVersion is {doc.get('apiVersion')!r} (expected {API_VERSION})."),
                         Msg(f"apiVersion: {API_VERSION}", f"apiVersion: {API_VERSION}")))
    if doc.get("kind") != KIND:
        problems.append((Msg(f"kind 가 {doc.get('kind')!r} 입니다 ({KIND} 이어야 합니다).",
                             f"kind is {doc.get('kind')!r} (expected {KIND})."), Msg(f"kind: {KIND}", f"kind: {KIND}")))
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    if meta.get("name") != runtime_name:
        problems.append((Msg(f"metadata.name 이 {meta.get('name')!r} 입니다 ({runtime_name!r} 이어야 합니다).",
                             f"metadata.name is {meta.get('name')!r} (expected {runtime_name!r})."),
                         Msg(f"metadata:\\n  name: {runtime_name}", f"metadata:\\n  name: {runtime_name}")))
    if doc.get("handler") != runtime_name:
        problems.append((Msg(f"handler 가 {doc.get('handler')!r} 입니다. containerd 런타임 이름 {runtime_name!r} 과 같아야 "
                             "합니다 (다르면 파드가 RunContainerError 로 실패합니다).",
                             f"handler is {doc.get('handler')!r}; it must equal the containerd runtime name "
                             f"{runtime_name!r} (otherwise pods fail with RunContainerError)."),
                         Msg(f"handler: {runtime_name}", f"handler: {runtime_name}")))
    return problems
