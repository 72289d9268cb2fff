"""What is wrong with a containerd config, as verdicts a student can act on: what, where (file, line), why it
matters, and the exact line to write. The behaviours cited are those observed with containerd 1.6 (see
tests/fixtures/broken/README.md, pinned by tests against the real program)."""

from __future__ import annotations

import posixpath

from ..errors import ConfigError
from ..messages import Msg
from ..result import Problem
from . import render
from .edit import default_runtime_name
from .effective import MERGE_1X, Effective, cri_plugin_id
from .layout import scan
from .load import TomlFile
from .versions import CRI_PLUGIN_NAMES, CRI_RUNTIME_PLUGIN, RUNTIME_TYPE, runtime_path, runtimes_path, \
    v2_style_tables_without_version
from .tables import get_in

# Keys containerd's CRI plugin knows in a runtime table (1.6 to 2.x); anything else is dropped silently.
KNOWN_RUNTIME_KEYS = {
    "runtime_type", "runtime_engine", "runtime_root", "runtime_path", "pod_annotations", "container_annotations",
    "privileged_without_host_devices", "privileged_without_host_devices_all_devices_allowed", "base_runtime_spec",
    "cni_conf_dir", "cni_max_conf_num", "snapshotter", "sandboxer", "sandbox_mode", "io_type", "options",
    "treat_ro_mounts_as_rro", "cgroup_writable",
}
BOOL_OPTIONS = ("SystemdCgroup", "NoPivotRoot", "NoNewKeyring")


def locate(eff: Effective, path: tuple[str, ...]) -> tuple[str, int | None]:
    """(file, 1-based line) where a table or key is written; the last file wins, as in the merge."""
    found = (eff.main.lab_path, None)
    for f in eff.files:
        layout = scan(f.text)
        for h in layout.headers:
            if h.path == path:
                found = (f.lab_path, h.line + 1)
        kv = layout.keyvalue(path)
        if kv is not None:
            found = (f.lab_path, kv.line + 1)
    return found


def header_text(eff: Effective, path: tuple[str, ...]) -> str:
    return render.header([render.key(p, render.quote_style(eff.main.text)) for p in path])


def owner_file(eff: Effective, runtime_name: str) -> TomlFile:
    """The file to edit so that the runtime ends up in the effective config."""
    plugin = cri_plugin_id(eff.version)
    if eff.merge == MERGE_1X:
        return eff.owner_of_plugin(plugin)
    owner = eff.main
    for f in eff.files:
        if get_in(f.data, runtimes_path(eff.version)) is not None:
            owner = f
    return owner


def blockers(eff: Effective, p, *, strays: bool = True) -> list[Problem]:
    """States in which writing the runtime would be a guess or would not work: apply stops, writing nothing.
    ``strays=False`` when a stray runtime table is about to be moved (repair.py), so it blocks nothing."""
    out = []
    disabled = eff.data.get("disabled_plugins") or []
    hit = [d for d in disabled if d in CRI_PLUGIN_NAMES[eff.version]]
    if hit:
        path, line = locate(eff, ("disabled_plugins",))
        out.append(Problem(
            Msg(f"disabled_plugins 에 CRI 플러그인({hit[0]})이 있습니다. 이러면 어떤 런타임을 등록해도 Kubernetes 가 보지 못합니다.",
                f"disabled_plugins lists the CRI plugin ({hit[0]}); Kubernetes will not see any runtime, whatever is registered."),
            Msg(f"그 줄을 이렇게 고치세요: {_disabled_line(disabled, hit)}", f"write that line as: {_disabled_line(disabled, hit)}"),
            path, line,
            why=Msg("containerd 는 CRI 플러그인을 아예 불러오지 않습니다.", "containerd does not load the CRI plugin at all.")))
    if v2_style_tables_without_version(eff.main.data):
        out.append(Problem(
            Msg("version 줄이 없는데 테이블은 version 2 형식(plugins.\"io.containerd.grpc.v1.cri\")입니다. containerd 는 이 파일을 "
                "version 1 로 읽고 그 테이블을 통째로 무시합니다.",
                "there is no version line, but the tables are in version-2 form (plugins.\"io.containerd.grpc.v1.cri\"); "
                "containerd reads the file as version 1 and ignores those tables entirely."),
            Msg("파일 맨 위에 이 줄을 넣으세요: version = 2", "add this line at the top of the file: version = 2"),
            eff.main.lab_path, 1,
            why=Msg("인터넷에서 복사한 스니펫이 '아무 효과가 없는' 가장 흔한 원인입니다.",
                    "the most common reason a copied snippet 'does nothing'.")))
    for path_, file_, line in stray_runtime_tables(eff, p.runtime_name) if strays else []:
        out.append(_stray_problem(eff, p.runtime_name, path_, file_, line))
    out += plugin_key_problems(eff, p)
    for missing in eff.missing_imports:
        out.append(Problem(
            Msg(f"imports 에 적힌 파일이 없습니다: {missing} (containerd 가 시작하지 못합니다).",
                f"an imported file does not exist: {missing} (containerd will not start)."),
            Msg("파일을 만들거나 imports 에서 그 경로를 지우세요.", "create the file or remove it from imports."),
            eff.main.lab_path))
    return out


# containerd's own v1 -> v2 plugin renames (v1Migrate), for the fix line of a version-1 key in a newer file.
_V1_PLUGIN_URIS = {
    "cri": "io.containerd.grpc.v1.cri", "cgroups": "io.containerd.monitor.v1.cgroups",
    "linux": "io.containerd.runtime.v1.linux", "scheduler": "io.containerd.gc.v1.scheduler",
    "bolt": "io.containerd.metadata.v1.bolt", "task": "io.containerd.runtime.v2.task",
    "opt": "io.containerd.internal.v1.opt", "restart": "io.containerd.internal.v1.restart",
    "overlayfs": "io.containerd.snapshotter.v1.overlayfs", "native": "io.containerd.snapshotter.v1.native",
    "diff-service": "io.containerd.service.v1.diff-service",
}


def plugin_key_problems(eff: Effective, p) -> list[Problem]:
    """A version-2/3 file whose `plugins` table has a key that is not a plugin URI (`cri`, or `io` from an
    unquoted header): containerd 1.x refuses the whole file ('invalid plugin key URI'), so it will not start.
    Keys that only hold a stray runtime table are left to that more specific verdict."""
    if eff.version < 2 or v2_style_tables_without_version(eff.main.data):
        return []
    stray_keys = {path[1] for path, _, _ in stray_runtime_tables(eff, p.runtime_name) if len(path) > 1}
    out = []
    for key in (eff.data.get("plugins") or {}):
        if len(key.split(".")) >= 4 or key in stray_keys:
            continue
        file_, line = _first_header_under(eff, ("plugins", key))
        uri = _V1_PLUGIN_URIS.get(key)
        fix = (Msg(f'version 1 이름입니다. 헤더의 plugins.{key} 를 plugins."{uri}" 로 바꾸세요.',
                   f'that is a version-1 name; change plugins.{key} in the header to plugins."{uri}".') if uri else
               Msg("점이 든 플러그인 이름은 따옴표로 감싸세요. 예: [plugins.\"io.containerd.grpc.v1.cri\"]",
                   "quote plugin names that contain dots, e.g. [plugins.\"io.containerd.grpc.v1.cri\"]"))
        out.append(Problem(
            Msg(f'plugins 아래의 "{key}" 는 플러그인 이름(URI)이 아닙니다. containerd 1.6 은 이 파일 전체를 '
                f'거부하고 시작하지 않습니다 (invalid plugin key URI "{key}").',
                f'"{key}" under plugins is not a plugin URI; containerd 1.6 refuses the whole file and does not start '
                f'(invalid plugin key URI "{key}").'),
            fix, file_, line,
            why=Msg(f"version {eff.version} 파일에서는 플러그인 이름을 io.containerd.<종류>.<버전>.<이름> 형식으로 씁니다.",
                    f"a version-{eff.version} file names plugins as io.containerd.<type>.<version>.<name>.")))
    return out


def _first_header_under(eff: Effective, prefix: tuple[str, ...]) -> tuple[str, int | None]:
    for f in eff.files:
        for h in scan(f.text).headers:
            if h.path[:len(prefix)] == prefix:
                return f.lab_path, h.line + 1
    return eff.main.lab_path, None


def _disabled_line(disabled: list, hit: list) -> str:
    keep = [d for d in disabled if d not in hit]
    return f"disabled_plugins = [{', '.join(render.value(d) for d in keep)}]"


def stray_runtime_tables(eff: Effective, name: str) -> list[tuple[tuple[str, ...], str, int | None]]:
    """Tables named like the runtime that sit where containerd does not look for them."""
    right = runtime_path(eff.version, name)
    out = []
    if v2_style_tables_without_version(eff.main.data):
        return out  # every version-2 table is "misplaced" then; the missing version line is the one verdict
    for f in eff.files:
        for h in scan(f.text).headers:
            if h.path[-1:] == (name,) and h.path != right and "plugins" == h.path[0] and "runtimes" in h.path:
                out.append((h.path, f.lab_path, h.line + 1))
    return out


def _stray_problem(eff: Effective, name: str, path, file_, line) -> Problem:
    right = runtime_path(eff.version, name)
    shown = _raw_header(eff, file_, line) or header_text(eff, path)
    rejects = Msg("containerd 1.6 은 plugins 아래의 키를 플러그인 이름(io.containerd.x.vx 꼴)으로 읽으므로, 이 파일 전체를 "
                  "거부하고 시작하지 않습니다.",
                  "containerd 1.6 reads every key under plugins as a plugin name (io.containerd.x.vx), so it rejects "
                  "this whole file and does not start.")
    if len(path) > 1 and path[1] == "io":
        what = Msg(f"섹션 헤더에 따옴표가 빠졌습니다: {shown}. 점마다 테이블이 나뉘어 plugins.io.containerd... 라는 엉뚱한 "
                   "테이블이 되고, containerd 는 'invalid plugin key URI \"io\"' 로 파일 전체를 거부합니다.",
                   f"the section header lost its quotes: {shown}; every dot opens another table (plugins.io.containerd...), "
                   "and containerd rejects the whole file with 'invalid plugin key URI \"io\"'.")
        why = rejects
    elif path[:2] == ("plugins", "cri") and eff.version >= 2:
        what = Msg(f"version {eff.version} 파일에 version 1 형식의 경로가 있습니다: {shown}. containerd 1.6 은 "
                   "'invalid plugin key URI \"cri\"' 로 파일 전체를 거부합니다.",
                   f"a version-1 path in a version-{eff.version} file: {shown}; containerd 1.6 rejects the whole file "
                   "with 'invalid plugin key URI \"cri\"'.")
        why = rejects
    elif path[:len(CRI_RUNTIME_PLUGIN[2])] == CRI_RUNTIME_PLUGIN[2] and eff.version >= 3:
        v = eff.version
        what = Msg(f"version {v} 파일에 version 2 형식의 경로가 있습니다: {shown}. containerd 2.x 는 이 경로에서 런타임을 찾지 않습니다.",
                   f"a version-2 path in a version-{v} file: {shown}; containerd 2.x does not look for runtimes there.")
        why = Msg(f"version {v} 에서 런타임은 plugins.\"io.containerd.cri.v1.runtime\" 아래에만 있습니다. version {v} 를 모르는 "
                  "containerd 1.6 은 오히려 이 테이블만 읽어 runc 를 포함한 다른 런타임을 모두 잃습니다.",
                  f"in version {v}, runtimes live under plugins.\"io.containerd.cri.v1.runtime\" only; containerd 1.6, which "
                  f"knows no version {v}, reads just this table and loses every other runtime, runc included.")
    else:
        what = Msg(f"런타임 테이블이 엉뚱한 곳에 있습니다: {shown}. containerd 는 이 테이블을 알리지 않고 버립니다.",
                   f"the runtime table is misplaced: {shown}; containerd drops it without a word.")
        why = Msg("containerd 는 설정 버전마다 정해진 한 경로(...containerd.runtimes.<이름>)에서만 런타임을 읽습니다.",
                  "containerd reads runtimes from one path per config version only (...containerd.runtimes.<name>).")
    head, opts = header_text(eff, right), header_text(eff, right + ("options",))
    return Problem(what, Msg(f"헤더를 {head} 로 고치세요 (options 하위 테이블의 헤더도 {opts} 로).",
                             f"change the header to {head} (and the options sub-table's header to {opts})."),
                   file_, line, why=why)


def _raw_header(eff: Effective, file_: str, line: int | None) -> str | None:
    """The header exactly as the student wrote it (a decoded path would hide the missing quotes)."""
    f = eff.file(file_)
    if f is None or not line:
        return None
    return f.text.split("\n")[line - 1].strip()


def require_runtime(after: Effective, p, lab_path: str) -> None:
    table = get_in(after.data, runtime_path(after.version, p.runtime_name))
    ok = isinstance(table, dict) and table.get("runtime_type") == RUNTIME_TYPE and isinstance(table.get("options"), dict) \
        and table["options"].get("BinaryName") == p.binary_name and table["options"].get("SystemdCgroup") is p.systemd_cgroup
    if not ok:
        raise ConfigError(
            Msg(f"{lab_path} 를 고쳐도 containerd 가 실제로 읽는 설정(imports 병합 결과)에 런타임이 남지 않습니다. 아무것도 쓰지 않았습니다.",
                f"editing {lab_path} would not leave the runtime in the config containerd actually uses (after merging "
                "imports); nothing was written."),
            Msg("imports 로 읽히는 파일 중 CRI 플러그인 테이블을 덮어쓰는 파일을 확인하세요 (layout=dropin 도 고려하세요).",
                "look for an imported file that overrides the CRI plugin table (or consider layout=dropin)."), path=lab_path)


def warnings(eff: Effective, p) -> list[Msg]:
    out = []
    default = default_runtime_name(eff.data, eff.version)
    base = get_in(eff.data, runtime_path(eff.version, default) + ("options", "SystemdCgroup"))
    if default != p.runtime_name and isinstance(base, bool) and base is not p.systemd_cgroup:
        out.append(Msg(
            f"주의: 기본 런타임 {default} 의 SystemdCgroup 은 {render.value(base)} 인데 {p.runtime_name} 에는 "
            f"{render.value(p.systemd_cgroup)} 를 씁니다. kubelet 의 cgroupDriver 와 다른 쪽 런타임의 파드는 시작하지 못합니다.",
            f"warning: the default runtime {default} has SystemdCgroup = {render.value(base)} but {p.runtime_name} gets "
            f"{render.value(p.systemd_cgroup)}; pods of whichever runtime disagrees with the kubelet's cgroupDriver fail to start."))
    return out


def default_problem(eff: Effective, p) -> Problem | None:
    default = default_runtime_name(eff.data, eff.version)
    if default != p.runtime_name:
        return None
    path, line = locate(eff, runtime_path(eff.version, "x")[:-2] + ("default_runtime_name",))
    return Problem(
        Msg(f"기본 런타임(default_runtime_name)이 {default} 로 되어 있습니다. 기본 런타임은 runc 로 두고 {p.runtime_name} 런타임은 "
            "RuntimeClass 로 골라 써야 합니다.",
            f"default_runtime_name is {default}; the default must stay runc, with {p.runtime_name} chosen through a RuntimeClass."),
        Msg('그 줄을 이렇게 고치세요: default_runtime_name = "runc"  (GPU 파드는 runtimeClassName 으로 지정합니다)',
            'write that line as: default_runtime_name = "runc"  (GPU pods opt in with runtimeClassName)'),
        path, line,
        why=Msg("RuntimeClass 가 없는 모든 파드까지 이 런타임을 거치게 되어, 런타임 문제가 클러스터 전체로 번집니다.",
                "every pod without a RuntimeClass would go through it, so a runtime problem would spread to the whole cluster."))


def runtime_problems(eff: Effective, p, *, part: str) -> list[Problem]:
    path = runtime_path(eff.version, p.runtime_name)
    table = get_in(eff.data, path)
    hdr = header_text(eff, path)
    out: list[Problem] = []
    if part == "runtime":
        for stray in stray_runtime_tables(eff, p.runtime_name):
            out.append(_stray_problem(eff, p.runtime_name, *stray))
        out += plugin_key_problems(eff, p)
        if not isinstance(table, dict):
            if not out:
                out.append(Problem(
                    Msg(f"{p.runtime_name} 런타임 테이블이 containerd 가 읽는 설정에 없습니다.",
                        f"the {p.runtime_name} runtime table is not in the config containerd reads."),
                    Msg(f"이 헤더로 추가하세요: {hdr} 그리고 runtime_type = \"{RUNTIME_TYPE}\"",
                        f"add it under this header: {hdr} with runtime_type = \"{RUNTIME_TYPE}\""), eff.main.lab_path))
            return out
        rt = table.get("runtime_type")
        where, line = locate(eff, path + ("runtime_type",) if rt is not None else path)
        if rt != RUNTIME_TYPE:
            out.append(Problem(
                Msg(f"runtime_type 이 {'없습니다' if rt is None else repr(rt) + ' 입니다'} ({RUNTIME_TYPE!r} 이어야 합니다).",
                    f"runtime_type is {'missing' if rt is None else repr(rt)} (expected {RUNTIME_TYPE!r})."),
                Msg(f'runtime_type = "{RUNTIME_TYPE}"' + ("" if rt is not None else f"  ({hdr} 아래에)"),
                    f'runtime_type = "{RUNTIME_TYPE}"' + ("" if rt is not None else f"  (under {hdr})")), where, line,
                why=Msg("runtime_type 이 containerd 가 띄울 shim 을 정합니다.", "runtime_type selects the shim containerd starts.")))
        for key in table:
            if key not in KNOWN_RUNTIME_KEYS:
                where, line = locate(eff, path + (key,))
                guess = _closest(key, KNOWN_RUNTIME_KEYS)
                value = render.value(table[key]) if not isinstance(table[key], dict) else "..."
                out.append(Problem(
                    Msg(f"런타임 테이블에 containerd 가 모르는 키가 있습니다: {key}. containerd 는 경고 없이 이 줄을 버립니다.",
                        f"the runtime table has a key containerd does not know: {key}; containerd drops the line silently."),
                    Msg(f"오타라면 그 줄을 이렇게 고치세요: {guess} = {value}" if guess else f"{key} 줄을 지우세요.",
                        f"if it is a typo, write that line as: {guess} = {value}" if guess else f"delete the {key} line."),
                    where, line, why=Msg("버려진 설정은 아무 효과가 없는데, containerd 는 아무 말도 하지 않습니다.",
                                         "a dropped setting has no effect, and containerd says nothing about it.")))
        out += _type_problems(eff, path, table, RUNTIME_TYPES)
        return out
    if not isinstance(table, dict):
        return []
    options = table.get("options")
    if not isinstance(options, dict):
        return [Problem(Msg(f"{p.runtime_name} 런타임에 options 하위 테이블이 없습니다.", f"the {p.runtime_name} runtime has no options sub-table."),
                        Msg(f"{header_text(eff, path + ('options',))} 아래에 BinaryName = \"{p.binary_name}\" 과 SystemdCgroup = "
                            f"{render.value(p.systemd_cgroup)} 를 적으세요.",
                            f"write BinaryName = \"{p.binary_name}\" and SystemdCgroup = {render.value(p.systemd_cgroup)} under "
                            f"{header_text(eff, path + ('options',))}."), eff.main.lab_path)]
    binary = options.get("BinaryName")
    where, line = locate(eff, path + ("options", "BinaryName") if binary is not None else path + ("options",))
    if binary is None:
        out.append(Problem(Msg("options 에 BinaryName 이 없습니다. 그러면 nvidia 가 아니라 평범한 runc 가 실행됩니다.",
                               "options has no BinaryName; plain runc would run instead of the nvidia runtime."),
                           Msg(f'BinaryName = "{p.binary_name}"  ({header_text(eff, path + ("options",))} 아래에)',
                               f'BinaryName = "{p.binary_name}"  (under {header_text(eff, path + ("options",))})'), where, line))
    elif not isinstance(binary, str) or not binary.startswith("/"):
        out.append(Problem(Msg(f"BinaryName {binary!r} 가 절대 경로가 아닙니다. shim 이 PATH 에서 찾게 되어 노드마다 결과가 달라집니다.",
                               f"BinaryName {binary!r} is not an absolute path; the shim would search PATH, which differs between nodes."),
                           Msg(f'BinaryName = "{p.binary_name}"', f'BinaryName = "{p.binary_name}"'), where, line))
    elif binary != p.binary_name:
        out.append(Problem(Msg(f"BinaryName 이 {binary!r} 입니다 ({p.binary_name!r} 이어야 합니다).",
                               f"BinaryName is {binary!r} (expected {p.binary_name!r})."),
                           Msg(f'BinaryName = "{p.binary_name}"', f'BinaryName = "{p.binary_name}"'), where, line))
    sc = options.get("SystemdCgroup")
    where, line = locate(eff, path + ("options", "SystemdCgroup"))
    if isinstance(sc, str):
        out.append(Problem(Msg(f"SystemdCgroup 이 문자열 {render.value(sc)} 입니다. TOML 불리언이어야 합니다.",
                               f"SystemdCgroup is the string {render.value(sc)}; it must be a TOML boolean."),
                           Msg(f"SystemdCgroup = {sc.strip().lower() if sc.strip().lower() in ('true', 'false') else 'true'}  (따옴표 없이)",
                               f"SystemdCgroup = {sc.strip().lower() if sc.strip().lower() in ('true', 'false') else 'true'}  (no quotes)"),
                           where, line, why=Msg("containerd 는 파드를 띄울 때에야 이 값을 읽다가 실패합니다.",
                                                "containerd only fails on it when a pod starts.")))
    elif sc is None or sc is not p.systemd_cgroup:
        out.append(Problem(Msg(f"SystemdCgroup 이 {'없습니다' if sc is None else render.value(sc) + ' 입니다'} "
                               f"({render.value(p.systemd_cgroup)} 이어야 합니다).",
                               f"SystemdCgroup is {'missing' if sc is None else render.value(sc)} (expected {render.value(p.systemd_cgroup)})."),
                           Msg(f"SystemdCgroup = {render.value(p.systemd_cgroup)}", f"SystemdCgroup = {render.value(p.systemd_cgroup)}"),
                           where, line))
    out += _type_problems(eff, path + ("options",), options, OPTION_TYPES, skip=("BinaryName", "SystemdCgroup"))
    if p.check_only:
        default = default_runtime_name(eff.data, eff.version)
        base = get_in(eff.data, runtime_path(eff.version, default) + ("options", "SystemdCgroup"))
        if default != p.runtime_name and isinstance(base, bool) and isinstance(sc, bool) and base is not sc:
            out.append(Problem(
                Msg(f"{p.runtime_name} 의 SystemdCgroup({render.value(sc)})이 기본 런타임 {default} 의 값({render.value(base)})과 다릅니다.",
                    f"{p.runtime_name}'s SystemdCgroup ({render.value(sc)}) disagrees with the default runtime {default}'s ({render.value(base)})."),
                Msg(f"kubelet 의 cgroupDriver 에 맞춰 두 런타임 모두 SystemdCgroup = {render.value(base)} 로 맞추세요.",
                    f"make both runtimes match the kubelet's cgroupDriver, e.g. SystemdCgroup = {render.value(base)} for both."),
                where, line, why=Msg("cgroup 드라이버가 어긋나면 한쪽 런타임의 파드가 시작하지 못합니다.",
                                     "with mismatched cgroup drivers, pods of one runtime fail to start.")))
    return out


# What containerd decodes each key as (CRI runtime config and runc's options); a TOML value of another type is
# either refused when the config is decoded or fails when a pod starts.
RUNTIME_TYPES = {"runtime_engine": str, "runtime_root": str, "runtime_path": str, "base_runtime_spec": str,
                 "cni_conf_dir": str, "snapshotter": str, "sandboxer": str, "sandbox_mode": str, "io_type": str,
                 "privileged_without_host_devices": bool, "privileged_without_host_devices_all_devices_allowed": bool,
                 "treat_ro_mounts_as_rro": bool, "cgroup_writable": bool, "cni_max_conf_num": int,
                 "pod_annotations": list, "container_annotations": list, "options": dict}
OPTION_TYPES = {"BinaryName": str, "Root": str, "CriuPath": str, "CriuImagePath": str, "CriuWorkPath": str,
                "ShimCgroup": str, "SystemdCgroup": bool, "NoPivotRoot": bool, "NoNewKeyring": bool,
                "IoUid": int, "IoGid": int}
_KIND = {str: ("문자열", "a string", '"..."'), bool: ("불리언(true/false)", "a boolean (true/false)", "true"),
         int: ("정수", "an integer", "0"), list: ("배열", "an array", '["..."]'), dict: ("테이블", "a table", "[...]")}


def _type_problems(eff: Effective, path, table: dict, types: dict, skip=()) -> list[Problem]:
    out = []
    for key, want in types.items():
        v = table.get(key)
        if key in skip or v is None or (isinstance(v, want) and not (want is int and isinstance(v, bool))):
            continue
        ko, en, example = _KIND[want]
        if want is bool and isinstance(v, str) and v.strip().lower() in ("true", "false"):
            example = v.strip().lower()  # a string boolean: the fix is the same word without quotes
        elif want is str and not isinstance(v, (dict, list)):
            example = render.value(str(v).lower() if isinstance(v, bool) else str(v))
        where, line = locate(eff, path + (key,))
        shown = render.value(v) if not isinstance(v, dict) else "{...}"
        out.append(Problem(
            Msg(f"{key} 의 값 {shown} 은(는) {ko}이어야 합니다.", f"{key} = {shown} must be {en}."),
            Msg(f"그 줄을 이렇게 고치세요: {key} = {example}", f"write that line as: {key} = {example}"), where, line,
            why=Msg("containerd 는 이 키를 정해진 형식으로 읽습니다. 형식이 다르면 설정을 읽다가 실패하거나 파드를 띄울 때 실패합니다.",
                    "containerd decodes this key as one type; another type fails when the config is decoded or when a pod starts.")))
    return out


def _closest(key: str, known: set[str]) -> str | None:
    import difflib
    m = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.75)
    return m[0] if m else None


__all__ = ["blockers", "owner_file", "require_runtime", "warnings", "default_problem", "runtime_problems",
           "posixpath"]
