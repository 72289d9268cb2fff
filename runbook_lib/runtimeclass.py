"""The Kubernetes RuntimeClass that lets GPU pods opt in to the runtime: build it, read it back."""

from __future__ import annotations


from .messages import Msg
from .yamldoc import load_mapping

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
    return load_mapping(text, lab_path, name=Msg("RuntimeClass 문서", "the RuntimeClass document"), keys="apiVersion, kind, metadata, handler")


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
