"""The CDI spec (/etc/cdi/nvidia.yaml): build a minimal one, read an existing one, list its top-level keys."""

from __future__ import annotations


from runbook_lib.findings.messages import Msg
from runbook_lib.fs.yamldoc import load_mapping, safe_load, yaml_line
from runbook_lib.findings.problem import WARNING, Problem
from runbook_lib.findings.catalog import say
from runbook_lib.cdi.strict import duplicate_keys, unknown_fields
from runbook_lib.cdi.validate import validate_spec
from runbook_lib.cdi.validate import KNOWN_CDI_VERSIONS

CDI_EXTENSIONS = (".yaml", ".json")  # what the CDI library scans a spec folder for; nvidia.yml is never read
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
    return load_mapping(text, lab_path, name=say("cdi.spec.cdi_spec"), keys="cdiVersion, kind, devices", restart_hint=True)


def top_level_keys(text: str) -> list[str]:
    """Top-level keys in file order (PyYAML keeps the order of a mapping)."""
    doc = safe_load(text)
    return [str(k) for k in doc] if isinstance(doc, dict) else []


# Why a rule matters, for every CDI verdict: the reference library (used by containerd, CRI-O and podman)
# skips a spec file that breaks a rule, so none of its devices can be requested.
REGENERATE = say("cdi.spec.gpu_node_regenerating_nvidia")
_FIXES = {"/kind": f"kind: {KIND}", "/cdiVersion": f'cdiVersion: "{CDI_VERSION}"'}


def spec_problems(doc: dict, lab_path: str, text: str | None = None, *, node: bool = False) -> list[Problem]:
    """Verdicts for the spec: the kind the runbook needs, then the CDI rules (schema and reference library),
    each with the line it is on when ``text`` is given. ``node``: a node's spec, whose surest fix is its own
    nvidia-ctk making it again (a lab has no nvidia-ctk: its fixes are the lines to write)."""
    problems = []
    for key, line, first in duplicate_keys(text or ""):
        problems.append(Problem.of("cdi.duplicate_key", lab_path, line, key=key, first=first, second=line))
    for at, field, guess in unknown_fields(doc):
        where = f"{at}/{field}"
        problems.append(Problem.of("cdi.unknown_field.typo" if guess else "cdi.unknown_field", lab_path,
                                   yaml_line(text, where), pointer=where, field=field, parent=at or "/", guess=guess))
    version = doc.get("cdiVersion")
    if isinstance(version, str) and _newer(version, CDI_VERSION):  # a spec copied from the newest docs
        problems.append(Problem.of("cdi.version_newer", lab_path, yaml_line(text, "/cdiVersion"), pointer="/cdiVersion",
                                   version=version, oldest=CDI_VERSION, severity=WARNING))
    kind = doc.get("kind")
    if kind != KIND:
        problems.append(Problem.of("cdi.kind_missing" if kind is None else "cdi.kind_wrong", lab_path,
                                   yaml_line(text, "/kind"), pointer="/kind", actual=kind, expected=KIND))
    for f in validate_spec(doc):
        if f["path"] == "/kind" and kind != KIND:
            continue  # already said, with the exact line to write
        fix = _FIXES.get(f["path"])
        written = _written_fix(f["path"], doc) if fix is None else None
        problems.append(Problem.of(
            f"cdi.{f['rule']}", lab_path, yaml_line(text, f["path"]), pointer=f["path"] or "/", at=f["path"] or "/",
            message={"ko": f["message_ko"], "en": f["message_en"]},
            fixed=say("cdi.spec.write_line", line=fix) if fix else written or
            say("cdi.spec.correct_described", at=f["path"]) + (REGENERATE if node else Msg.verbatim(""))))
    return problems


def _written_fix(pointer: str, doc: dict) -> Msg | None:
    """The lines to write for a part a hand-written spec left out (a device's containerEdits, the devices)."""
    import re
    edits = say("cdi.spec.write_containeredits_under_devicenodes")
    if re.fullmatch(r"/devices/\d+/containerEdits", pointer):
        return say("cdi.spec.inside_device_deep_name", edits=edits)
    if pointer == "/devices" and "devices" not in doc:
        return say("cdi.spec.top_level_write_devices", edits=edits)
    return None


def _newer(version: str, than: str) -> bool:
    """A known cdiVersion above ``than`` (an unknown one is the reference rules' verdict)."""
    return version in KNOWN_CDI_VERSIONS and KNOWN_CDI_VERSIONS.index(version) > KNOWN_CDI_VERSIONS.index(than)
