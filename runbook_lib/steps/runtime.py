"""Step 2: the runtime's table under the path of the config's version, written together with its options (one
atomic edit, in place, as a drop-in, or on a distribution's route), and read back. Every existing line, comment
and key order is kept: the edit is containerd/edit.py's (in place), containerd/dropin.py's, or
containerd/distro/plan.py's, and the write is the engine's (run.plan_write, fs/safe_write.py)."""

from __future__ import annotations

from dataclasses import replace

from runbook_lib.containerd import ask, diagnose, dropin, managed, releases, repair
from runbook_lib.containerd.distro import detect as distro
from runbook_lib.containerd.distro.plan import plan_route
from runbook_lib.containerd.edit import RuntimeWanted, default_runtime_name, plan_runtime, template_runtime
from runbook_lib.containerd.load import load_toml
from runbook_lib.containerd.owner import RuntimeOwnedElsewhere, require_not_foreign
from runbook_lib.containerd.releases import RuntimeKeys
from runbook_lib.containerd.tables import get_in
from runbook_lib.containerd.variants import runtime_variants
from runbook_lib.containerd.versions import RUNTIME_TYPE, newest_version_read_by, read_by, runtime_path, runtimes_path
from runbook_lib.findings.catalog import say
from runbook_lib.findings.problem import Problem, words
from runbook_lib.fs.plan import Plan
from runbook_lib.steps import found
from runbook_lib.steps._show import runtime_evidence
from runbook_lib.steps.base import Step

NUMBER, ID = 2, "runtime"
TITLE = say("title.runtime")


def variants(run) -> list[RuntimeWanted]:
    """nvidia-cdi and nvidia-legacy beside the runtime, when the variants parameter asks for them."""
    return runtime_variants(run.wanted) if run.p.variants else []


def replaces(p) -> bool:
    """Whether a runtime of that name with another BinaryName is rewritten: with replace_runtime, and always in
    the lab profile, where it is the student's own mistake (a typo in BinaryName, step 3's finding and repair).
    Another owner's runtime (the GPU Operator's, nvidia-ctk's, a distribution's) exists only on a node."""
    return bool(p.replace_runtime) or getattr(p, "profile", "node") == "lab"


def _only_options(eff, p, edit) -> bool:
    """The edit changes nothing but the options of a runtime table that is there: step 3's findings."""
    said = edit.notes + edit.repairs
    return bool(said) and all(m in edit.options for m in said) and \
        isinstance(get_in(eff.data, runtime_path(eff.version, p.runtime_name)), dict)


def _node(run):
    """The target whose binaries a replacement must find (a node's); a lab's binaries are not the lab's to have."""
    return None if getattr(run.p, "profile", "node") == "lab" else run.target


def variant_params(run) -> list:
    """The parameters as each variant is judged: its own name and binary, everything else the same."""
    return [replace(run.p, runtime_name=v.name, binary_name=v.binary) for v in variants(run)]


def plan(run) -> Plan:
    p = run.p
    if run.route_refusal is not None:
        return Plan(run.route_refusal.what, refusals=[run.route_refusal])
    if p.variants and (run.on_distro or p.layout == "dropin"):
        problem = Problem.of("variants.inplace_only", p.config_path, layout=p.layout,
                             route=run.route.distro if run.route else "containerd")
        return Plan(problem.what, refusals=[problem])
    if run.on_distro:
        return _route(run)
    eff = run.effective()
    moved = repair.move_stray_runtime(eff, p.runtime_name) if p.layout != "dropin" else None
    out = Plan(say("runtime.runtime_already_registered", runtime_name=p.runtime_name),
               subject=diagnose.header_text(eff, runtime_path(eff.version, p.runtime_name)))
    out.refusals = _blockers(eff, p, strays=moved is None) + _newer_than_containerd(run, eff)
    generated = distro.generated_finding(eff.main.text, eff.main.lab_path)
    if generated is not None and run.route.distro == distro.PLAIN:  # a file a distribution rewrites at every start: an edit there is lost
        out.refusals.insert(0, generated)
    if out.refusals:
        out.message = out.refusals[0].what
        return out
    if diagnose.default_is_the_runtime(eff, p):  # the node's default already is it (EKS GPU, DGX): left as it is
        out.message = words("runtime.is_the_kept_default", runtime=p.runtime_name)[0]
        return out
    if moved:  # the rest of the step works on the moved text: one write, one diff, one backup
        eff = run.effective_with({moved.lab_path: eff.file(moved.lab_path).encode(moved.text)})
        out.notes += moved.notes
    if p.layout == "dropin":
        return _dropin(run, eff, out)
    require_not_foreign(eff, p.runtime_name, p.binary_name, replace_runtime=replaces(p), target=_node(run))
    owner = diagnose.owner_file(eff, p.runtime_name)
    version = eff.version
    text, data = owner.text, owner.data
    if owner is eff.main and eff.main.empty and "version" not in data:
        version = run.empty_config_version()  # the node's containerd decides, when there is one to ask
        text = f"version = {version}\n\n" + text  # say which version the tables are written for
        data = {"version": version, **data}
    template, source = template_runtime(eff.data, version, run.wanted, runtime_keys(run, version, _default_table(eff, version)))
    default = default_runtime_name(eff.data, version)
    if default == "runc" and not get_in(eff.data, runtimes_path(version)):
        # No runtimes in the config means containerd's built-in runc; once any runtime table exists, the
        # built-in one is gone (containerd 1.6, tests/fixtures/broken), so the default is written too.
        base = plan_runtime(text, data, version, RuntimeWanted(default, "", False), {"runtime_type": RUNTIME_TYPE},
                            lab_path=owner.lab_path)
        text, data = base.text, load_toml(base.text.encode(), owner.lab_path).data
        out.notes += [say("runtime.config_no_runtimes_containerd", default=default)]
    edit = plan_runtime(text, data, version, run.wanted, template, lab_path=owner.lab_path, source_name=source,
                        replace_runtime=replaces(p))
    for extra in variants(run):  # the GPU Operator-style runtimes, in the same edit, each copied from the default
        require_not_foreign(eff, extra.name, extra.binary, replace_runtime=replaces(p), target=_node(run))
        extra_template, extra_source = template_runtime(eff.data, version, extra,
                                                        runtime_keys(run, version, _default_table(eff, version)))
        more = plan_runtime(edit.text, load_toml(edit.text.encode(), owner.lab_path).data, version, extra,
                            extra_template, lab_path=owner.lab_path, source_name=extra_source,
                            replace_runtime=replaces(p))
        edit.text, edit.notes, edit.repairs = more.text, edit.notes + more.notes, edit.repairs + more.repairs
        edit.options = edit.options + more.options
    write = run.plan_write(owner.lab_path, owner.encode(edit.text))
    if not run.mode.writes and not moved and _only_options(eff, p, edit):
        # check mode: the options are step 3's to judge; the write stays planned (the later steps' expected files
        # are derived from the corrected config), but this step says neither the repair nor its diff
        out.others_repair = True
        out.writes.append(write)
        return out
    if write.changed or moved:
        after = run.effective_with({owner.lab_path: write.new})
        diagnose.require_runtime(after, p, owner.lab_path)
        said = [m for m in edit.notes + edit.repairs if run.mode.writes or m not in edit.options]
        out.message = (out.notes[:1] if moved else []) + said + [out.message]
        out.message = out.message[0]
        out.notes += [m for m in said if m != out.message]
        if source and get_in(eff.data, runtime_path(eff.version, p.runtime_name)) is None:
            out.notes.append(say("runtime.new_runtime_starts_copy", source=source))
    out.writes.append(write)
    return out


def _route(run) -> Plan:
    """k3s, RKE2, microk8s, k0s: the runtime goes where the distribution reads it (its template or its drop-in
    folder, containerd/distro/plan.py), checked as the distribution will render it."""
    route = run.route
    newer = _newer_than_containerd(run, run.effective())  # a version-3 k3s file under a containerd 1.x named by containerd_bin
    if newer:
        return Plan(newer[0].what, refusals=newer)
    planned = plan_route(run.target, route, run.wanted, replace_runtime=replaces(run.p))
    out = Plan(say("runtime.runtime_already_s_route", runtime_name=run.p.runtime_name, distro=route.distro, at=route.path),
               subject=route.path, notes=list(planned.notes))
    if planned.changed:
        out.message = say("runtime.write_runtime", distro=route.distro, at=route.path, runtime_name=run.p.runtime_name)
        if planned.folder:
            out.dirs += run.missing_dirs(planned.folder)
    out.writes += [run.plan_write(w.lab_path, w.new, mode=w.mode) for w in planned.writes]
    return out


def _dropin(run, eff, out: Plan) -> Plan:
    """layout=dropin (containerd/dropin.py): the planned files are verified on the effective config first."""
    planned = dropin.plan_dropin(run.target, run.p, eff, run.wanted, replace_runtime=replaces(run.p))
    out.notes += planned.notes
    if planned.changed or not planned.writes:
        out.message = planned.message
    if planned.changed:
        out.dirs += run.missing_dirs(planned.folder)
    out.writes += [run.plan_write(w.lab_path, w.new, mode=w.mode) for w in planned.writes]
    return out


def _newer_than_containerd(run, eff) -> list[Problem]:
    """A config in a version the node's containerd does not know (version 3 under containerd 1.x): its CRI
    tables are dropped without an error, so a runtime written there is never read. Asked only where step 9
    asks (containerd_bin, or containerd on PATH on a real node), from `containerd --version`."""
    if eff.main.empty:
        return []
    binary, _ = ask.choose_binary(run.p, run.target)
    if binary is None:
        return []
    version = ask.containerd_version(binary)
    known = newest_version_read_by(version)
    if known is None or eff.version <= known:
        return []
    return [Problem.of("config.version_newer_than_containerd", eff.main.lab_path, diagnose.version_line(eff),
                       file_version=eff.version, known=known, containerd_version=version, binary=binary,
                       read_by=read_by(eff.version))]


def foreign_problem(run, eff) -> Problem | None:
    """Another owner's runtime of that name (owner.py): apply's plan refuses it, and check says the same."""
    if run.on_distro:
        return None  # the distribution's route judges its own runtimes (containerd/distro/plan.py)
    try:
        require_not_foreign(eff, run.p.runtime_name, run.p.binary_name, replace_runtime=replaces(run.p),
                            target=_node(run))
    except RuntimeOwnedElsewhere as exc:
        return Problem.from_error(exc)
    return None


def runtime_keys(run, version: int, table) -> RuntimeKeys | None:
    """The runtime-table keys the node's containerd keeps of ``table``, asked of it (releases.ask_runtime_keys)
    where step 9 would ask one (containerd_bin, or containerd on PATH on a real node); None (the data's, for the
    config's version) where there is none, or it cannot read the table alone."""
    binary, _ = ask.choose_binary(run.p, run.target)
    if binary is None or not isinstance(table, dict):
        return None
    return releases.ask_runtime_keys(binary, ask.containerd_version(binary), version, table)


def _default_table(eff, version: int):
    """The table a new runtime is copied from (edit.template_runtime's source), to ask which of its keys containerd keeps."""
    runtimes = get_in(eff.data, runtimes_path(version))
    runtimes = runtimes if isinstance(runtimes, dict) else {}
    for name in (default_runtime_name(eff.data, version), "runc", "crun"):
        if isinstance(runtimes.get(name), dict):
            return runtimes[name]
    return None


def managed_file_warnings(run, eff) -> list[Problem]:
    """The files of the config another tool writes again (containerd/managed.py), on a node: a warning each."""
    if run.on_distro or getattr(run.p, "profile", "node") == "lab":
        return []  # a distribution's route writes where it lasts; a lab root is the course's
    raw = run.read_bytes(managed.OS_RELEASE)
    return managed.managed_warnings(eff.files, raw.decode("utf-8", "replace") if raw else None)


def verdict(run) -> list[Problem]:
    eff = run.effective()
    foreign = foreign_problem(run, eff)

    def keys(p):
        return runtime_keys(run, eff.version, get_in(eff.data, runtime_path(eff.version, p.runtime_name)))

    problems = (managed_file_warnings(run, eff) + diagnose.import_cycle_problems(eff) + _blockers(eff, run.p)
                + _newer_than_containerd(run, eff)
                + ([foreign] if foreign else []) + diagnose.runtime_problems(eff, run.p, part="runtime", keys=keys(run.p)))
    for pv in variant_params(run):  # each variant is a runtime of its own, judged by the same rules
        problems += diagnose.runtime_problems(eff, pv, part="runtime", keys=keys(pv)) + \
            diagnose.runtime_problems(eff, pv, part="options")
    return problems


def _blockers(eff, p, *, strays: bool = True) -> list:
    """What stops the write, for the plan and the verdict alike: diagnose's, and with layout=dropin another
    tool's file where the drop-in goes."""
    return diagnose.blockers(eff, p, strays=strays) + (dropin.foreign_dropin_problems(eff, p) if p.layout == "dropin" else [])


def evidence(run) -> dict[str, str]:
    return runtime_evidence(run)



# The check cell (notebooks/run.ipynb): the files read back as a student would, and what must hold, stated with
# the values this run decided (rb.expected); the plan runs it on the planned state before the first write.
CHECK = """cfg = rb.containerd_config()                  # tomllib: config.toml merged with its imports
nvidia = rb.runtime_table(cfg, runtime_name)     # at the path of the config's version
with rb.expect("runtime") as expect:
    expect.equal(nvidia, "runtime_type", rb.expected.runtime_type)"""

STEP = Step(NUMBER, ID, TITLE, plan, verdict, evidence=evidence, check=CHECK, message=found.runtime)
