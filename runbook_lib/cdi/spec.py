"""The CDI spec (/etc/cdi/nvidia.yaml): build a minimal one, read an existing one, list its top-level keys."""

from __future__ import annotations


from runbook_lib.findings.messages import Msg
from runbook_lib.fs.yamldoc import load_mapping, safe_load, yaml_line
from runbook_lib.findings.problem import WARNING, Problem

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
    return load_mapping(text, lab_path, name=Msg("CDI 스펙", "the CDI spec"), keys="cdiVersion, kind, devices", restart_hint=True)


def top_level_keys(text: str) -> list[str]:
    """Top-level keys in file order (PyYAML keeps the order of a mapping)."""
    doc = safe_load(text)
    return [str(k) for k in doc] if isinstance(doc, dict) else []


# Why a rule matters, for every CDI verdict: the reference library (used by containerd, CRI-O and podman)
# skips a spec file that breaks a rule, so none of its devices can be requested.
WHY = Msg("CDI 레지스트리는 규칙에 어긋난 스펙 파일을 통째로 건너뜁니다. 그 파일의 장치를 요청한 컨테이너는 "
          "'unresolvable CDI devices' 로 시작하지 못합니다.",
          "the CDI registry skips a spec file that breaks a rule, so a container asking for its devices fails to "
          "start with 'unresolvable CDI devices'.")
REGENERATE = Msg("GPU 노드에서는 nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml 로 다시 만드는 것이 가장 확실합니다.",
                 "on a GPU node, regenerating it with nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml is the surest fix.")
_FIXES = {"/kind": f"kind: {KIND}", "/cdiVersion": f'cdiVersion: "{CDI_VERSION}"'}


def spec_problems(doc: dict, lab_path: str, text: str | None = None) -> list[Problem]:
    """Verdicts for the spec: the kind the runbook needs, then the CDI rules (schema and reference library),
    each with the line it is on when ``text`` is given."""
    from runbook_lib.cdi.strict import duplicate_keys, unknown_fields
    from runbook_lib.cdi.validate import validate_spec
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
        problems.append(Problem(
            Msg(f"{f['path'] or '/'}: {f['message_ko']}", f"{f['path'] or '/'}: {f['message_en']}"),
            Msg(fix, fix) if fix else written or
            Msg(f"위 설명대로 고치세요: {f['path']}", f"correct {f['path']} as described.") + REGENERATE,
            lab_path, yaml_line(text, f["path"]), why=WHY, code=f"cdi.{f['rule']}", pointer=f["path"] or "/"))
    return problems


def _written_fix(pointer: str, doc: dict) -> Msg | None:
    """The lines to write for a part a hand-written spec left out (a device's containerEdits, the devices)."""
    import re
    edits = Msg("containerEdits: 를, 그 아래에 deviceNodes: 를, 또 그 아래에 - path: /dev/nvidia0 을 적으세요",
                "write containerEdits:, under it deviceNodes:, and under that - path: /dev/nvidia0")
    if re.fullmatch(r"/devices/\d+/containerEdits", pointer):
        return Msg(f"장치 안에 (name: 과 같은 들여쓰기로) {edits.ko}.", f"inside the device, as deep as its name:, {edits.en}.")
    if pointer == "/devices" and "devices" not in doc:
        return Msg(f"맨 위 단계에 devices: 를, 그 아래에 - name: all 을 적고, name: 과 같은 들여쓰기로 {edits.ko}.",
                   f"at the top level write devices:, under it - name: all, and, as deep as that name:, {edits.en}.")
    return None


def _newer(version: str, than: str) -> bool:
    """A known cdiVersion above ``than`` (an unknown one is the reference rules' verdict)."""
    from runbook_lib.cdi.validate import KNOWN_CDI_VERSIONS
    return version in KNOWN_CDI_VERSIONS and KNOWN_CDI_VERSIONS.index(version) > KNOWN_CDI_VERSIONS.index(than)
