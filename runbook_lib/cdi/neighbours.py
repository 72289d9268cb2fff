"""The other files in the CDI spec folders, as the CDI registry (containerd, CRI-O, podman) sees them.

The registry reads every *.yaml and *.json file of a spec folder. Two specs in the same folder that define the
same device cancel it: the device is dropped and a container asking for it fails with "unresolvable CDI
devices nvidia.com/gpu=all" (podman 4.3 shows it: tests/real/test_real_podman_cdi.py). A copy kept beside the
spec (`cp nvidia.yaml nvidia-old.yaml`) does exactly that. And a spec saved under another name (nvidia.yml,
which the registry never reads, or nvidia.json) is not "missing": the student wrote it, in the wrong place.
"""

from __future__ import annotations

import posixpath

from runbook_lib.containerd.cdi_config import DEFAULT_SPEC_DIRS
from runbook_lib.fs import bounded_read
from runbook_lib.findings.errors import ConfinementError
from runbook_lib.findings.problem import Problem
from runbook_lib.cdi.spec import CDI_EXTENSIONS as READ  # the only files the registry reads
from runbook_lib.fs.yamldoc import safe_load



def spec_dirs(run) -> tuple[str, ...]:
    """containerd's CDI registry's default folders (containerd/cdi_config.py), and /run/cdi: where /var/run/cdi
    is on a node whose /var/run links to /run (a lab root may hold them as two folders)."""
    return DEFAULT_SPEC_DIRS + ("/run/cdi",)


def _specs(run, folder: str, suffixes: tuple[str, ...]) -> list[tuple[str, dict]]:
    """(lab path, document) of each file in ``folder`` with one of ``suffixes`` that reads as a mapping."""
    try:
        host = run.target.resolve(folder)
        names = bounded_read.names_in(host, folder, lambda n: n.endswith(suffixes)) if host.is_dir() else []
    except (OSError, ConfinementError):
        return []
    out = []
    for name in names:
        lab = posixpath.join(folder, name)
        if not name.endswith(suffixes):
            continue
        try:
            data = run.read_bytes(lab)
            doc = safe_load(data.decode("utf-8", "replace")) if data is not None else None
        except Exception:  # noqa: BLE001 - a file the registry cannot read either defines nothing
            continue
        if isinstance(doc, dict):
            out.append((lab, doc))
    return out


def _devices(doc: dict) -> set[str]:
    devices = doc.get("devices") if isinstance(doc.get("devices"), list) else []
    return {str(d["name"]) for d in devices if isinstance(d, dict) and "name" in d}


def conflicting_specs(run, spec: str, doc: dict) -> list[Problem]:
    """Another spec in the spec's folder that defines one of its devices."""
    kind, mine = doc.get("kind"), _devices(doc)
    out = []
    for other, theirs in _specs(run, posixpath.dirname(spec), READ):
        both = sorted(mine & _devices(theirs))
        if other != spec and theirs.get("kind") == kind and both:
            out.append(Problem.of("cdi.conflicting_spec", other, spec=spec, other=other,
                                  device=f"{kind}={both[0]}", folder=posixpath.dirname(spec)))
    return out


def spec_elsewhere(run, spec: str, kind: str) -> Problem | None:
    """A missing spec written under another name or in another spec folder: where it is, and the mv."""
    for folder in dict.fromkeys((posixpath.dirname(spec),) + spec_dirs(run)):
        for other, doc in _specs(run, folder, READ + (".yml",)):
            if other != spec and doc.get("kind") == kind:
                code = "cdi.spec_unread_name" if not other.endswith(READ) else "cdi.spec_elsewhere"
                return Problem.of(code, spec, spec=spec, other=other, kind=kind,
                                  spec_at=run.target.shell_path(spec), other_at=run.target.shell_path(other))
    return None


def node_spec(run, spec: str, kind: str) -> str | None:
    """A node's own spec of ``kind`` in a CDI folder the registry reads (/etc/cdi, /var/run/cdi, /run/cdi), by a
    name the registry reads, other than ``spec``; None when there is none."""
    for folder in dict.fromkeys((posixpath.dirname(spec),) + spec_dirs(run)):
        for other, doc in _specs(run, folder, READ):
            if other != spec and doc.get("kind") == kind:
                return other
    return None
