"""What the CDI reference library refuses before any rule is checked: it decodes a spec strictly, so a field
its Go types do not have (`containerEdit:`, `envs:`, a key of another tool) or a key written twice makes the
whole spec unusable ("unresolvable CDI devices nvidia.com/gpu=all" in podman 4.3,
tests/real/test_real_podman_cdi.py). The upstream JSON schema allows both, so they are checked here: the known
fields are the schema's own properties, plus the few the Go types have and the shipped schema does not list.
"""

from __future__ import annotations

import yaml

from runbook_lib.cdi.validate import schema_documents, pointer
from runbook_lib.fs.yamldoc import Excessive, compose
from runbook_lib.k8s.names import closest

# Fields of the Go types (container-device-interface specs-go) that the shipped schema leaves out.
EXTRA_FIELDS = {"DeviceNode": {"fileMode"}}


def _resolve(node: dict, defs: dict) -> tuple[str | None, dict]:
    ref = node.get("$ref", "")
    if ref.startswith("defs.json#/definitions/"):
        name = ref.rsplit("/", 1)[1]
        return name, defs["definitions"][name]
    return None, node


def unknown_fields(spec: dict) -> list[tuple[str, str, str | None]]:
    """(JSON pointer of the object, the unknown field, the known field it nearly spells) for every field the
    spec's types do not have."""
    schema, defs = schema_documents()
    out: list[tuple[str, str, str | None]] = []

    def walk(value, node: dict, parts: list) -> None:
        name, node = _resolve(node, defs)
        if isinstance(value, dict) and "properties" in node:
            known = set(node["properties"]) | EXTRA_FIELDS.get(name or "", set())
            for key, sub in value.items():
                if key not in known:
                    out.append((pointer(parts), str(key), closest(str(key), known)))
                else:
                    walk(sub, node["properties"][key], parts + [key])
        elif isinstance(value, list) and isinstance(node.get("items"), dict):
            for i, item in enumerate(value):
                walk(item, node["items"], parts + [i])

    walk(spec, schema, [])
    return out


def duplicate_keys(text: str) -> list[tuple[str, int, int]]:
    """(key, 1-based line of the second one, of the first) for every mapping key written twice."""
    try:
        root = compose(text)
    except Excessive:
        return []
    out = []
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.value in seen:
                    out.append((k.value, k.start_mark.line + 1, seen[k.value]))
                elif isinstance(k, yaml.ScalarNode):
                    seen[k.value] = k.start_mark.line + 1
                stack.append(v)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return sorted(out, key=lambda d: d[1])
