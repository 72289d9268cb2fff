"""The Kubernetes RuntimeClass that lets GPU pods opt in to the runtime: build it, read it back."""

from __future__ import annotations


from runbook_lib.findings.problem import Problem
from runbook_lib.findings.catalog import say
from runbook_lib.k8s.names import closest
from runbook_lib.fs.yamldoc import load_mapping, yaml_line

API_VERSION = "node.k8s.io/v1"
KIND = "RuntimeClass"
# Every top-level field of node.k8s.io/v1 RuntimeClass; kubectl apply (strict field validation, the default
# since Kubernetes 1.25) refuses any other with "unknown field" (tests/real/test_real_runtimeclass.py).
FIELDS = ("apiVersion", "kind", "metadata", "handler", "overhead", "scheduling")
# RuntimeClass's versions before v1, which old guides still show: the API server no longer serves them (v1beta1
# since Kubernetes 1.25, tests/real/test_real_runtimeclass.py), so kubectl apply finds no such kind
RETIRED_API_VERSIONS = ("node.k8s.io/v1beta1", "node.k8s.io/v1alpha1")


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
    return load_mapping(text, lab_path, name=say("k8s.runtimeclass.runtimeclass_document"), keys="apiVersion, kind, metadata, handler")


def runtimeclass_problems(doc: dict, runtime_name: str, lab_path: str, text: str | None = None) -> list[Problem]:
    """A finding for each difference from what the runbook expects, on the line it is on. A key that is not
    there is said to be missing (Kubernetes requires every one), a handler written under another key (the
    `spec:` of a Pod or Deployment, copied by habit) is said to be there."""
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    checks = (("apiVersion", doc.get("apiVersion"), API_VERSION, "/apiVersion"),
              ("kind", doc.get("kind"), KIND, "/kind"),
              ("name", meta.get("name"), runtime_name, "/metadata/name"),
              ("handler", doc.get("handler"), runtime_name, "/handler"))
    kind = checks[1][1]
    if isinstance(kind, str) and kind.lower() != KIND.lower():  # a Pod (or another object) pasted in its place
        return [Problem.of("runtimeclass.other_kind", lab_path, yaml_line(text, "/kind"), pointer="/kind", kind=kind,
                           name=runtime_name, file=lab_path)]
    out, nested = [], _nested_handler(doc) if doc.get("handler") is None else None
    typos = {}
    for field in doc:
        if field in FIELDS or (nested and field == nested.split("/")[1]):
            continue
        guess = closest(str(field), FIELDS, fold_case=True)
        guess = guess if guess not in doc else None  # beside the right key, a second spelling is only deleted
        if guess:
            typos[guess] = field
        want = {"handler": runtime_name, "kind": KIND, "apiVersion": API_VERSION}.get(guess)
        out.append(Problem.of("runtimeclass.unknown_field.typo" if guess else "runtimeclass.unknown_field", lab_path,
                              yaml_line(text, f"/{field}"), pointer=f"/{field}", field=str(field), guess=guess,
                              line_text=f"{guess}: {want}" if want else f"{guess}:"))
    for key, got, want, pointer in checks:
        if got == want or (got is None and (key in typos or key == "name" and "metadata" in typos)):  # said above
            continue
        if key == "handler" and nested is not None:
            out.append(Problem.of("runtimeclass.handler_nested", lab_path, yaml_line(text, nested), pointer=nested,
                                  under=nested.split("/")[1], expected=want))
        elif got is None:
            place = _UNDER_METADATA if key == "name" else _TOP_LEVEL
            out.append(Problem.of("runtimeclass.field_missing", lab_path, yaml_line(text, pointer), pointer=pointer,
                                  field=pointer[1:].replace("/", "."), line_text=f"{pointer.split('/')[-1]}: {want}",
                                  place=place))
        else:
            code = "runtimeclass.apiVersion.retired" if key == "apiVersion" and got in RETIRED_API_VERSIONS \
                else f"runtimeclass.{key}"
            out.append(Problem.of(code, lab_path, yaml_line(text, pointer), pointer=pointer,
                                  actual=str(got), expected=want, runtime=runtime_name))
    return out


_TOP_LEVEL = say("k8s.runtimeclass.top_level_no_indentation")
_UNDER_METADATA = say("k8s.runtimeclass.under_metadata_indented_two")


def _nested_handler(doc: dict) -> str | None:
    """The JSON pointer of a `handler` key one level down (spec.handler, metadata.handler), or None."""
    for key, value in doc.items():
        if isinstance(value, dict) and "handler" in value:
            return f"/{key}/handler"
    return None
