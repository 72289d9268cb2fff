"""The Kubernetes RuntimeClass that lets GPU pods opt in to the runtime: build it, read it back."""

from __future__ import annotations


from .findings import Problem
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


def runtimeclass_problems(doc: dict, runtime_name: str, lab_path: str, text: str | None = None) -> list[Problem]:
    """A finding for each difference from what the runbook expects, on the line it is on."""
    from .cdi import yaml_line
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    checks = (("apiVersion", doc.get("apiVersion"), API_VERSION, "/apiVersion"),
              ("kind", doc.get("kind"), KIND, "/kind"),
              ("name", meta.get("name"), runtime_name, "/metadata/name"),
              ("handler", doc.get("handler"), runtime_name, "/handler"))
    return [Problem.of(f"runtimeclass.{key}", lab_path, yaml_line(text, pointer), pointer=pointer,
                       actual="(없음 / missing)" if got is None else str(got), expected=want, runtime=runtime_name)
            for key, got, want, pointer in checks if got != want]
