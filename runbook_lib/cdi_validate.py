"""Validate a CDI spec (already parsed into a dict) without jsonschema.

Two layers, each finding tagged with where its rule comes from:
- "schema": the upstream CDI JSON schema (required fields, types, integer ranges);
- "reference": what the reference Go implementation (cncf-tags/container-device-interface, pkg/cdi and
  pkg/parser) adds and the schema does not hold: known cdiVersion, `kind` = vendor/class syntax, device
  name syntax, unique and non-empty devices, env "KEY=VALUE", device types and permissions, hook names.
Each finding: {"path": JSON pointer, "rule": ..., "message_ko": ..., "message_en": ...}.
"""
from __future__ import annotations

import re

# The versions the reference implementation knows (its validSpecVersions).
KNOWN_CDI_VERSIONS = ("0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0")
HOOK_NAMES = ("prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop")
DEVICE_TYPES = ("b", "c", "u", "p")
UINT32 = (0, 2**32 - 1)
INT64 = (-(2**63), 2**63 - 1)
_VENDOR = re.compile(r"[A-Za-z]([A-Za-z0-9_.-]*[A-Za-z0-9])?")
_CLASS = re.compile(r"[A-Za-z]([A-Za-z0-9_.-]*[A-Za-z0-9])?")
_DEVICE = re.compile(r"[A-Za-z0-9]([A-Za-z0-9_.:-]*[A-Za-z0-9])?")

_TYPE_KO = {"object": "객체(매핑)", "array": "목록", "string": "문자열", "integer": "정수", "boolean": "참/거짓 값"}
_TYPE_EN = {"object": "an object (mapping)", "array": "a list", "string": "a string", "integer": "an integer",
            "boolean": "a boolean"}


def _pointer(parts) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


class _Checker:
    def __init__(self):
        self.findings: list[dict] = []

    def add(self, path, rule, ko, en):
        self.findings.append({"path": _pointer(path), "rule": rule, "message_ko": ko, "message_en": en})

    def is_type(self, value, kind, path) -> bool:
        ok = {"object": isinstance(value, dict), "array": isinstance(value, list),
              "string": isinstance(value, str), "boolean": isinstance(value, bool),
              "integer": isinstance(value, int) and not isinstance(value, bool)}[kind]
        if not ok:
            where = _pointer(path) or "/"
            self.add(path, "schema", f"{where} 의 값은 {_TYPE_KO[kind]}이어야 하는데 {value!r} 입니다.",
                     f"{where} must be {_TYPE_EN[kind]}, found {value!r}.")
        return ok

    def required(self, obj, keys, path):
        for key in keys:
            if key not in obj:
                self.add(path + [key], "schema", f"필수 항목 '{key}' 이(가) {_pointer(path) or '최상위'}에 없습니다.",
                         f"The required field '{key}' is missing at {_pointer(path) or 'the top level'}.")

    def integer(self, obj, key, bounds, path):
        if key in obj and self.is_type(obj[key], "integer", path + [key]):
            low, high = bounds
            if not low <= obj[key] <= high:
                self.add(path + [key], "schema", f"{_pointer(path + [key])} 의 값 {obj[key]} 이(가) 범위({low}~{high})를 벗어납니다.",
                         f"{_pointer(path + [key])} = {obj[key]} is outside {low}..{high}.")

    def strings(self, obj, keys, path):
        for key in keys:
            if key in obj:
                self.is_type(obj[key], "string", path + [key])

    def string_list(self, obj, key, path) -> list:
        if key not in obj or not self.is_type(obj[key], "array", path + [key]):
            return []
        return [(i, v) for i, v in enumerate(obj[key]) if self.is_type(v, "string", path + [key, i])]

    def string_map(self, obj, key, path):
        if key in obj and self.is_type(obj[key], "object", path + [key]):
            for k, v in obj[key].items():
                self.is_type(v, "string", path + [key, k])

    # --- the parts of a spec ---------------------------------------------------------------------------
    def edits(self, edits, path):
        if not self.is_type(edits, "object", path):
            return
        for i, env in self.string_list(edits, "env", path):
            if "=" not in env:
                self.add(path + ["env", i], "reference", f"환경 변수 {env!r} 에 '=' 가 없습니다. 'KEY=VALUE' 꼴로 쓰세요.",
                         f"The environment variable {env!r} has no '='; write it as 'KEY=VALUE'.")
        self._each(edits, "deviceNodes", path, self.device_node)
        self._each(edits, "mounts", path, self.mount)
        self._each(edits, "hooks", path, self.hook)
        self._each(edits, "netDevices", path, self.net_device)
        if "additionalGids" in edits and self.is_type(edits["additionalGids"], "array", path + ["additionalGids"]):
            for i, _ in enumerate(edits["additionalGids"]):
                self.integer(edits["additionalGids"], i, UINT32, path + ["additionalGids"])
        if "intelRdt" in edits and self.is_type(edits["intelRdt"], "object", path + ["intelRdt"]):
            rdt, p = edits["intelRdt"], path + ["intelRdt"]
            self.strings(rdt, ("closID", "l3CacheSchema", "memBwSchema"), p)
            self.string_list(rdt, "schemata", p)
            if "enableMonitoring" in rdt:
                self.is_type(rdt["enableMonitoring"], "boolean", p + ["enableMonitoring"])

    def _each(self, obj, key, path, check):
        if key in obj and self.is_type(obj[key], "array", path + [key]):
            for i, item in enumerate(obj[key]):
                if self.is_type(item, "object", path + [key, i]):
                    check(item, path + [key, i])

    def device_node(self, node, path):
        self.required(node, ("path",), path)
        self.strings(node, ("path", "hostPath", "permissions", "type"), path)
        for key in ("major", "minor"):
            self.integer(node, key, INT64, path)
        for key in ("uid", "gid"):
            self.integer(node, key, UINT32, path)
        if node.get("path") == "":
            self.add(path + ["path"], "reference", "장치 노드의 path 가 비어 있습니다. 컨테이너 안의 경로(예: /dev/nvidia0)를 쓰세요.",
                     "The device node path is empty; give its path inside the container (e.g. /dev/nvidia0).")
        if isinstance(node.get("type"), str) and node["type"] not in ("",) + DEVICE_TYPES:
            self.add(path + ["type"], "reference", f"장치 종류 {node['type']!r} 은(는) 쓸 수 없습니다. b, c, u, p 중 하나입니다.",
                     f"The device type {node['type']!r} is invalid; it is one of b, c, u, p.")
        perms = node.get("permissions")
        if isinstance(perms, str) and perms.strip("rwm"):
            self.add(path + ["permissions"], "reference", f"장치 권한 {perms!r} 에는 r, w, m 만 쓸 수 있습니다.",
                     f"The device permissions {perms!r} may contain only r, w and m.")

    def mount(self, mount, path):
        self.required(mount, ("hostPath", "containerPath"), path)
        self.strings(mount, ("hostPath", "containerPath", "type"), path)
        self.string_list(mount, "options", path)
        for key in ("hostPath", "containerPath"):
            if mount.get(key) == "":
                self.add(path + [key], "reference", f"마운트의 {key} 가 비어 있습니다.", f"The mount's {key} is empty.")

    def hook(self, hook, path):
        self.required(hook, ("hookName", "path"), path)
        self.strings(hook, ("hookName", "path"), path)
        self.string_list(hook, "args", path)
        self.string_list(hook, "env", path)
        self.integer(hook, "timeout", UINT32, path)
        if isinstance(hook.get("hookName"), str) and hook["hookName"] not in HOOK_NAMES:
            self.add(path + ["hookName"], "reference",
                     f"훅 이름 {hook['hookName']!r} 은(는) 알 수 없는 이름입니다. {', '.join(HOOK_NAMES)} 중 하나를 쓰세요.",
                     f"The hook name {hook['hookName']!r} is unknown; use one of {', '.join(HOOK_NAMES)}.")
        if hook.get("path") == "":
            self.add(path + ["path"], "reference", "훅의 path 가 비어 있습니다.", "The hook's path is empty.")

    def net_device(self, dev, path):
        self.required(dev, ("hostInterfaceName", "name"), path)
        self.strings(dev, ("hostInterfaceName", "name"), path)

    def kind(self, kind, path):
        vendor, slash, cls = kind.partition("/")
        if not slash or not vendor or not cls:
            self.add(path, "reference", f"kind {kind!r} 은(는) '제조사/분류' 꼴이어야 합니다 (예: nvidia.com/gpu).",
                     f"The kind {kind!r} must have the form 'vendor/class' (e.g. nvidia.com/gpu).")
            return
        for part, pattern, ko, en in ((vendor, _VENDOR, "제조사(vendor)", "vendor"), (cls, _CLASS, "분류(class)", "class")):
            if not pattern.fullmatch(part):
                self.add(path, "reference",
                         f"kind 의 {ko} {part!r} 이(가) 규칙에 맞지 않습니다: 영문자로 시작하고 영문자나 숫자로 끝나며, "
                         "중간에는 영문자, 숫자, '_', '-', '.' 만 쓸 수 있습니다.",
                         f"The kind's {en} {part!r} is invalid: it starts with a letter, ends with a letter or digit, "
                         "and holds only letters, digits, '_', '-' and '.'.")

    def device(self, dev, path, version):
        self.required(dev, ("name", "containerEdits"), path)
        self.string_map(dev, "annotations", path)
        if "containerEdits" in dev:
            self.edits(dev["containerEdits"], path + ["containerEdits"])
            if isinstance(dev["containerEdits"], dict) and not any(dev["containerEdits"].values()):
                self.add(path + ["containerEdits"], "reference",
                         "장치의 containerEdits 가 비어 있습니다. 장치 노드, 마운트, 환경 변수 등 적어도 하나가 있어야 합니다.",
                         "The device's containerEdits are empty; it needs at least one device node, mount, env, etc.")
        name = dev.get("name")
        if "name" in dev and self.is_type(name, "string", path + ["name"]):
            if not _DEVICE.fullmatch(name):
                self.add(path + ["name"], "reference",
                         f"장치 이름 {name!r} 이(가) 규칙에 맞지 않습니다: 영문자나 숫자로 시작하고 끝나며, 중간에는 "
                         "영문자, 숫자, '_', '-', '.', ':' 만 쓸 수 있습니다.",
                         f"The device name {name!r} is invalid: it starts and ends with a letter or digit and holds "
                         "only letters, digits, '_', '-', '.' and ':'.")
            elif name[0].isdigit() and version in KNOWN_CDI_VERSIONS[:4]:
                self.add(path + ["name"], "reference",
                         f"숫자로 시작하는 장치 이름 {name!r} 은(는) cdiVersion 0.5.0 부터 허용됩니다 (지금은 {version}).",
                         f"A device name starting with a digit ({name!r}) needs cdiVersion 0.5.0 or later (not {version}).")


def validate_spec(spec: object) -> list[dict]:
    """Every problem found in `spec`; an empty list means valid."""
    c = _Checker()
    if not c.is_type(spec, "object", []):
        return c.findings
    c.required(spec, ("cdiVersion", "kind", "devices"), [])
    version = spec.get("cdiVersion")
    if "cdiVersion" in spec and c.is_type(version, "string", ["cdiVersion"]) and version not in KNOWN_CDI_VERSIONS:
        c.add(["cdiVersion"], "reference",
              f"cdiVersion {version!r} 은(는) 알려진 버전이 아닙니다. {', '.join(KNOWN_CDI_VERSIONS)} 중 하나를 쓰세요.",
              f"cdiVersion {version!r} is not a known version; use one of {', '.join(KNOWN_CDI_VERSIONS)}.")
    if "kind" in spec and c.is_type(spec["kind"], "string", ["kind"]):
        c.kind(spec["kind"], ["kind"])
    c.string_map(spec, "annotations", [])
    if "containerEdits" in spec:
        c.edits(spec["containerEdits"], ["containerEdits"])
    if "devices" in spec and c.is_type(spec["devices"], "array", ["devices"]):
        if not spec["devices"]:
            c.add(["devices"], "reference", "devices 목록이 비어 있습니다. 장치가 하나 이상 있어야 합니다.",
                  "The devices list is empty; a spec needs at least one device.")
        seen = set()
        for i, dev in enumerate(spec["devices"]):
            if c.is_type(dev, "object", ["devices", i]):
                c.device(dev, ["devices", i], version)
                name = dev.get("name")
                if isinstance(name, str) and name in seen:
                    c.add(["devices", i, "name"], "reference", f"장치 이름 {name!r} 이(가) 두 번 나옵니다.",
                          f"The device name {name!r} appears twice.")
                seen.add(name) if isinstance(name, str) else None
    return c.findings
