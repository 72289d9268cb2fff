"""Which Kubernetes distribution runs containerd under a root, and for each: the file the runbook really edits,
the service to restart and how containerd's own view is checked.

Each distribution, from its source:
- plain containerd: /etc/containerd/config.toml (in place or conf.d/ drop-in), `systemctl restart containerd`.
- k3s / RKE2 (k3s pkg/agent/containerd, pkg/agent/templates): they write
  /var/lib/rancher/{k3s,rke2}/agent/etc/containerd/config.toml at every start ("DO NOT EDIT"), from
  config-v3.toml.tmpl (containerd 2.x, version 3) or config.toml.tmpl (version 2) when present: Go templates,
  `{{ template "base" . }}` is the stock config. Newer releases make the generated file import
  config-v3.toml.d/*.toml (config.toml.d/*.toml for version 2): a drop-in there is the simplest route.
  They add `nvidia` themselves when they find the binary (/usr/local/nvidia/toolkit, then PATH).
- microk8s (microk8s-resources/wrappers/run-containerd-with-args): /var/snap/microk8s/current/args/
  containerd-template.toml, turned into args/containerd.toml at start by sed over ${SNAP}, ${SNAP_DATA},
  ${SNAPSHOTTER}, ${RUNTIME} (runc) and ${RUNTIME_TYPE}; `snap restart microk8s.daemon-containerd`.
- k0s (pkg/component/worker/containerd): /etc/k0s/containerd.toml, k0s-managed while its first line is
  `# k0s_managed=true`; drop-ins in /etc/k0s/containerd.d/*.toml, which k0s watches and reloads by itself
  (version 3 or none from k0s 1.36 on, containerd 2).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field

from runbook_lib.findings.messages import Msg
from runbook_lib.fs.safe_write import read_bytes
from runbook_lib.fs.target import Target
from runbook_lib.fs.tomldoc import loads as toml_loads
from runbook_lib.findings.problem import Problem
from runbook_lib.findings.catalog import say
from runbook_lib.containerd.versions import nearest, of

PLAIN, K3S, RKE2, MICROK8S, K0S = "containerd", "k3s", "rke2", "microk8s", "k0s"
DISTROS = (PLAIN, K3S, RKE2, MICROK8S, K0S)

# how the runbook edits each route
EDIT_CONFIG = "config"                  # a plain containerd config (in place or with a conf.d drop-in)
EDIT_DROPIN_DIR = "dropin-dir"          # a new file in a folder the generated config imports
EDIT_GO_TEMPLATE = "go-template"        # k3s/RKE2 config*.toml.tmpl: appended after the base, never parsed
EDIT_PLACEHOLDER_TEMPLATE = "placeholder-template"  # microk8s: TOML with ${...} placeholders

GENERATED_FILE = "distro.generated_file"       # finding: the file is rewritten by its distribution
MARKED_GENERATED = "distro.marked_do_not_edit"  # finding: the file says DO NOT EDIT, outside a distribution's paths
GO_TEMPLATE_AS_CONFIG = "distro.go_template_as_config"
DISTRO_AMBIGUOUS = "distro.ambiguous"
DISTRO_UNKNOWN = "distro.unknown"

RANCHER = {K3S: "/var/lib/rancher/k3s", RKE2: "/var/lib/rancher/rke2"}
MICROK8S_DATA = "/var/snap/microk8s/current"
K0S_CONFIG = "/etc/k0s/containerd.toml"
K0S_DROPINS = "/etc/k0s/containerd.d"
K0S_MARK = "# k0s_managed=true"
BASE_INCLUDE = re.compile(r"\{\{-?\s*template\s+\"base\"\s+\.\s*-?\}\}")


@dataclass
class Route:
    """What the runbook edits on this node and how it makes containerd read it."""
    distro: str
    edit: str                       # EDIT_*
    path: str                       # the file written (or the drop-in file to write)
    config: str                     # the file containerd is started with (for `config dump`)
    version: int | None             # the config version of what is written
    generated: str | None = None    # the file the distribution rewrites itself (never edited)
    restart: tuple[str, ...] = ()   # the command that makes containerd read it (empty: reloads by itself)
    verify: tuple[str, ...] = ()    # how containerd's view is checked
    notes: list[Msg] = field(default_factory=list)


def _exists(target: Target, lab_path: str) -> bool:
    return target.resolve(lab_path).exists()


def _text(target: Target, lab_path: str) -> str | None:
    raw = read_bytes(target.resolve(lab_path), shown=lab_path)
    return raw.decode("utf-8", "replace").lstrip("\ufeff") if raw is not None else None


def detect(target: Target) -> list[str]:
    """The distributions whose containerd files are under the root (plain containerd when none is)."""
    found = []
    for name, base in RANCHER.items():
        if _exists(target, f"{base}/agent/etc/containerd") or _exists(target, f"/etc/rancher/{name}"):
            found.append(name)
    if _exists(target, f"{MICROK8S_DATA}/args/containerd-template.toml"):
        found.append(MICROK8S)
    if _exists(target, K0S_CONFIG) or _exists(target, K0S_DROPINS):
        found.append(K0S)
    return found or [PLAIN]


def choose(target: Target, distro: str = "auto") -> str | Problem:
    """The distribution to configure: the one asked for, or the one found (``auto``); a finding when
    ``auto`` finds several Kubernetes distributions (say which with the distro parameter)."""
    if distro != "auto":
        if distro not in DISTROS:
            return Problem.of(DISTRO_UNKNOWN, distro=distro, known=list(DISTROS))
        return distro
    found = detect(target)
    if len(found) > 1:
        return Problem.of(DISTRO_AMBIGUOUS, found=found, choices=" / ".join(found))
    return found[0]


def route(target: Target, distro: str, runtime_name: str, *, config_path: str = "/etc/containerd/config.toml") -> Route:
    """The route for ``distro`` (from ``choose``) and the runtime to register."""
    if distro in RANCHER:
        return _rancher_route(target, distro, runtime_name)
    if distro == MICROK8S:
        path = f"{MICROK8S_DATA}/args/containerd-template.toml"
        return Route(MICROK8S, EDIT_PLACEHOLDER_TEMPLATE, path, f"{MICROK8S_DATA}/args/containerd.toml", 2,
                     generated=f"{MICROK8S_DATA}/args/containerd.toml",
                     restart=("snap", "restart", "microk8s.daemon-containerd"),
                     verify=("/snap/microk8s/current/bin/containerd", "--config", f"{MICROK8S_DATA}/args/containerd.toml",
                             "config", "dump"),
                     notes=[say("detect.microk8s_fills_containerd_template")])
    if distro == K0S:
        main = _text(target, K0S_CONFIG)
        managed = main is None or main.startswith(K0S_MARK + "\n") or main.rstrip("\n") == K0S_MARK
        version = _version(main) or 3
        verify = ("/var/lib/k0s/bin/containerd", "--config", K0S_CONFIG, "config", "dump")
        if managed:
            return Route(K0S, EDIT_DROPIN_DIR, f"{K0S_DROPINS}/{runtime_name}.toml", K0S_CONFIG, version, generated=K0S_CONFIG,
                         verify=verify,
                         notes=[say("detect.k0s_watches_etc_k0s")])
        return Route(K0S, EDIT_CONFIG, K0S_CONFIG, K0S_CONFIG, version, restart=("systemctl", "restart", _k0s_unit(target)),
                     verify=verify, notes=[say("detect.no_k0s_managed_mark")])
    main = _text(target, config_path)
    return Route(PLAIN, EDIT_CONFIG, config_path, config_path, _version(main), restart=("systemctl", "restart", "containerd"),
                 verify=("containerd", "--config", config_path, "config", "dump"))


def _version(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        v = toml_loads(text).get("version")
    except tomllib.TOMLDecodeError:
        return None
    return v if type(v) is int else None


def _k0s_unit(target: Target) -> str:
    return "k0scontroller" if _exists(target, "/etc/systemd/system/k0scontroller.service") else "k0sworker"


def _rancher_route(target: Target, distro: str, runtime_name: str) -> Route:
    base = RANCHER[distro]
    folder = f"{base}/agent/etc/containerd"
    generated = f"{folder}/config.toml"
    gen_text = _text(target, generated)
    version = _version(gen_text)
    if version is None:  # not generated yet: a v3 template exists, or containerd 2.x (k3s since 2025) is assumed
        version = 2 if _exists(target, f"{folder}/{of(2).k3s_template}") and not _exists(target, f"{folder}/{of(3).k3s_template}") else 3
    template, dropins = f"{folder}/{nearest(version).k3s_template}", f"{folder}/{nearest(version).k3s_dropins}"
    agent = _exists(target, f"/etc/systemd/system/{distro}-agent.service") and not \
        _exists(target, f"/etc/systemd/system/{distro}.service") and not _exists(target, f"/etc/systemd/system/{distro}-server.service")
    unit = f"{distro}-agent" if agent else (distro if distro == K3S else f"{distro}-server")
    binary = f"{base}/data/current/bin/containerd" if distro == K3S else f"{base}/bin/containerd"
    common = dict(config=generated, version=version, generated=generated, restart=("systemctl", "restart", unit),
                  verify=(binary, "--config", generated, "config", "dump"))
    imports = _imports(gen_text)
    if any(i.startswith(dropins + "/") for i in imports) and not _exists(target, template):
        notes = [say("detect.generates_imports_toml_drop", distro=distro, dropins=dropins, generated=generated)]
        if not nearest(version).merges_key_by_key:
            # Drop-in folders came with k3s/RKE2 releases that ship containerd 2.x, which merges key by key even
            # for a version-2 root; containerd 1.x would replace the whole CRI table with the drop-in's.
            notes.append(say("detect.releases_drop_folders_ship"))
        return Route(distro, EDIT_DROPIN_DIR, f"{dropins}/99-{runtime_name}.toml", **common, notes=notes)
    return Route(distro, EDIT_GO_TEMPLATE, template, **common,
                 notes=[say("detect.rewrites_every_start_runtime", distro=distro, generated=generated, template=template)])


def _imports(text: str | None) -> list[str]:
    if text is None:
        return []
    try:
        imports = toml_loads(text).get("imports") or []
    except tomllib.TOMLDecodeError:
        return []
    return [i for i in imports if isinstance(i, str)]


def generated_finding(text: str, lab_path: str, route_: Route | None = None) -> Problem | None:
    """A finding when ``lab_path`` is a file its distribution generates (never edited: the edit would be lost
    at the next start; the finding names the right route), a file another tool marks DO NOT EDIT in its first
    lines, or a Go template handed over as a config (never parsed as TOML); None for a plain config."""
    head = text.lstrip("\ufeff").splitlines()[:3]
    marked = next((n for n, line in enumerate(head, 1) if "DO NOT EDIT" in line), None)
    generated_by = next((d for d, base in RANCHER.items() if lab_path == f"{base}/agent/etc/containerd/config.toml"), None)
    if generated_by is None and (lab_path == f"{MICROK8S_DATA}/args/containerd.toml"
                                 or (marked and lab_path.startswith(f"{MICROK8S_DATA}/"))):
        generated_by = MICROK8S
    if generated_by is not None:
        where = route_.path if route_ is not None else _suggested(generated_by)
        return Problem.of(GENERATED_FILE, lab_path, 1, file=lab_path, by=generated_by, route=where)
    if marked is not None:
        # Marked, but not where a distribution keeps its generated file: a copy of one (a k3s config put in
        # /etc/containerd), or a config management tool's. Which tool rewrites it, and where its source is, only
        # the node knows: the finding quotes the mark and says both ways out.
        return Problem.of(MARKED_GENERATED, lab_path, marked, file=lab_path, n=marked, mark=head[marked - 1].strip())
    m = re.search(r"\{\{", text)
    if m:
        line = text.count("\n", 0, m.start()) + 1
        return Problem.of(GO_TEMPLATE_AS_CONFIG, lab_path, line, file=lab_path)
    return None


def _suggested(by: str) -> str:
    """The file a distribution renders its generated config from: the one to edit instead."""
    return f"{RANCHER[by]}/agent/etc/containerd/config-v3.toml.tmpl" if by in RANCHER else f"{MICROK8S_DATA}/args/containerd-template.toml"
