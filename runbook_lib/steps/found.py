"""What a step that passed says: the files as they are read after this run (apply: read back after the write;
check: as found), never what the runbook did or would do ("copy ...", "the options are written by step 2").
A plan's message says what a run would do (the plan view); these say what is there. Each is a step's ``message``
hook (steps/base.py), used only when the step found no error; None leaves the plan's words (a distribution's own
generated config, a node's answer-file facts, which the node's verdicts name themselves).
"""

from __future__ import annotations

from runbook_lib.containerd.versions import runtime_table, runtimes_table
import posixpath

from runbook_lib.findings.catalog import say
from runbook_lib.findings.errors import RunbookError
from runbook_lib.findings.messages import Msg
from runbook_lib.fs.tomlvalue import value


def _effective(run):
    try:
        return run.effective()
    except RunbookError:
        return None


def _holder(run, eff, name: str) -> str:
    """The file whose table of the runtime containerd uses (the last one merged that has it)."""
    found = [f.lab_path for f in eff.files if isinstance(getattr(f, "data", None), dict)
             and isinstance(runtime_table(f.data, eff.version, name)[0], dict)]
    return found[-1] if found else run.p.config_path  # a reading that keeps no file's own data: the config


def prepare(run) -> Msg | None:
    if run.on_distro:
        return None
    data = run.read_bytes(run.p.config_path)
    if data is None:
        return None
    folders = [run.p.toolkit_dir] if run.answer_files else []
    if folders:
        return say("found.prepare.with_folders", config=run.p.config_path, size=len(data), folders=folders)
    return say("found.prepare", config=run.p.config_path, size=len(data))


def runtime(run) -> Msg | None:
    eff = _effective(run)
    if eff is None:
        return None
    name = run.p.runtime_name
    table, where = runtime_table(eff.data, eff.version, name)
    if not isinstance(table, dict):
        return None
    return say("found.runtime", file=_holder(run, eff, name), table=where,
               runtime_type=value(table.get("runtime_type")) if "runtime_type" in table else "-")


def cdi(run) -> Msg | None:
    from runbook_lib.cdi import spec as cdi_spec

    plan = run.plans.get("cdi")  # its subject is the spec the step judges (a node's own where it is)
    spec = plan.subject if plan is not None and plan.subject else run.p.cdi_spec
    try:
        text = run.read_text(spec)
        doc = cdi_spec.load_spec(text, spec) if text is not None else None
    except RunbookError:
        return None
    if not isinstance(doc, dict):
        return None
    devices = [str(d.get("name")) for d in doc.get("devices") or [] if isinstance(d, dict) and d.get("name") is not None]
    found = say("found.cdi", spec=spec, kind=doc.get("kind"), devices=devices or "-")
    if not run.answer_files and run.mode.writes and plan is not None \
            and any(w.lab_path == spec and w.changed for w in plan.writes):
        return Msg.join("; ", [found, plan.message])  # this run wrote it: how it was made (a node's nvidia-ctk)
    return found


def runtimeclass(run) -> Msg | None:
    from runbook_lib.k8s import runtimeclass as rc

    path = run.tk("runtimeclass.yaml")
    try:
        text = run.read_text(path)
        doc = rc.load_runtimeclass(text, path) if text is not None else None
    except RunbookError:
        return None
    if not isinstance(doc, dict):
        return None
    name = (doc.get("metadata") or {}).get("name") if isinstance(doc.get("metadata"), dict) else None
    if not run.answer_files:  # a node's RuntimeClass is the manifest to apply: its handler as containerd reads it now
        try:
            eff = run.effective()
        except RunbookError:
            return None
        runtimes = runtimes_table(eff.data, eff.version)[0] or {}
        return say("found.runtimeclass.node", name=name or "-", handler=doc.get("handler") or "-",
                   runtimes=", ".join(runtimes) or "-")
    return say("found.runtimeclass", file=posixpath.basename(path), name=name or "-", handler=doc.get("handler") or "-")
