"""Step 9: ask containerd itself how it reads the config (`containerd --config FILE config dump`), and compare
what it reads with what the runbook expects. Asked only when there is a containerd to ask: on a real node, or
with the containerd_bin parameter; otherwise the step is skipped and says why. It writes nothing."""

from __future__ import annotations

import subprocess

from runbook_lib.containerd import ask, verify
from runbook_lib.containerd.distro import detect as distro
from runbook_lib.containerd.edit import default_runtime_name
from runbook_lib.containerd.invariant import changed_beside
from runbook_lib.containerd.tables import get_in
from runbook_lib.containerd.versions import runtime_path
from runbook_lib.findings.catalog import say
from runbook_lib.findings.errors import RunbookError
from runbook_lib.findings.messages import Msg
from runbook_lib.findings.problem import Problem
from runbook_lib.fs.plan import Plan
from runbook_lib.steps.base import Step
from runbook_lib.steps.runtime import foreign_problem, variants

NUMBER, ID = 9, "containerd"  # the id is also the key of what it learnt in run.readings
TITLE = say("title.containerd")


BEFORE = ID + ".before"  # containerd's whole reading before apply writes, for the invariant (containerd/invariant.py)


def plan(run) -> Plan:
    binary, why = ask.choose_binary(run.p, run.target)
    cmd = ask.DUMP_CMD.format(config=run.p.config_path)
    if binary is None:
        return Plan(why)
    # the node's own config, as containerd reads it before apply writes (none yet: step 1 puts the lab's base there)
    # (once per run: a notebook plans again after its write cells, when "before" is gone)
    if BEFORE not in run.readings:
        ours_to_judge = run.mode.adds and run.path(run.p.config_path).is_file()  # on disk, not as planned
        run.readings[BEFORE] = _dump(run, binary) if ours_to_judge else None
    return Plan(say("ask_containerd.ask", binary=binary, cmd=cmd), subject=cmd)


def _dump(run, binary: str) -> dict | None:
    """containerd's whole reading of the config as it is now, or None when it cannot be had."""
    import tomllib
    try:
        return tomllib.loads(verify.containerd_dump(binary, run.path(run.p.config_path), run.target.root))
    except (verify.ContainerdRejected, OSError, ValueError, subprocess.SubprocessError, tomllib.TOMLDecodeError):
        return None


def _changed_beside(run, after: dict) -> Problem | None:
    """apply's promise, asked of containerd: beside the runtimes it adds and the CDI settings, it reads the same.
    `after` is containerd's dump of the files as they are now (the verdict's own)."""
    before = run.readings.get(BEFORE)
    if not isinstance(before, dict):
        return None
    names = (run.p.runtime_name, *(v.name for v in variants(run)))
    changed = changed_beside(before, after, names, imports=run.p.layout == "dropin")
    if not changed:
        return None
    return Problem.of("containerd.reads.changed_beside", run.p.config_path, paths=", ".join(changed[:8]),
                      runtime=run.p.runtime_name, cmd=ask.DUMP_CMD.format(config=run.p.config_path))


ASKED = ID + ".asked"  # containerd's dump as the check cell asked for it (or why it could not), for its verdict


def _ask(run, binary: str) -> dict:
    import tomllib
    return tomllib.loads(verify.containerd_dump(binary, run.path(run.p.config_path), run.target.root))


def _files_now(run) -> tuple | None:
    """The files containerd reads, as they are now: an answer asked of other bytes is not this one's."""
    try:
        return tuple((f.lab_path, f.text) for f in run.effective().files)
    except RunbookError:
        return None


def ask_now(run) -> dict | None:
    """The check cell's question: the config as containerd reads it (the whole dump), or None when there is no
    containerd to ask or it could not be had (the verdict then says why, from the same answer, as long as the
    files are still the ones it was asked of)."""
    binary, _ = ask.choose_binary(run.p, run.target)
    if binary is None:
        return None
    try:
        answer = _ask(run, binary)
    except (verify.ContainerdRejected, OSError, ValueError, subprocess.SubprocessError) as exc:
        answer = exc
    run.readings[ASKED] = (_files_now(run), answer)
    return None if isinstance(answer, BaseException) else answer


def skipped(run) -> Msg | None:
    return ask.choose_binary(run.p, run.target)[1]


def verdict(run) -> list[Problem]:
    p = run.p
    binary, _ = ask.choose_binary(p, run.target)
    run.readings.pop(ID, None)
    if binary is None:
        return []
    asked_of, asked = run.readings.pop(ASKED, (None, None))  # the check cell's question: not asked twice
    if asked is not None and asked_of != _files_now(run):
        asked = None  # asked of other bytes (a cell run before its write, a fix by hand since): ask again
    try:
        if isinstance(asked, BaseException):
            raise asked
        dump = asked if asked is not None else _ask(run, binary)
        reading = verify.reading_of(dump, p.runtime_name)
    except verify.ContainerdRejected as exc:
        return [ask.rejected_problem(exc, p.config_path)]
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        ko, _, en = str(exc).partition("\n")
        return [Problem.of("containerd.not_asked", p.config_path, detail={"ko": ko, "en": en or ko})]  # containerd's words, or the OS's
    reading["binary"], reading["containerd_version"] = binary, ask.containerd_version(binary)
    try:
        eff = run.effective()
        written = get_in(eff.data, runtime_path(eff.version, p.runtime_name))
        file_default = default_runtime_name(eff.data, eff.version)
        file_version = eff.version
    except RunbookError:
        written, file_default, file_version = None, None, None
    rows, problems = ask.compare(reading, p, written if isinstance(written, dict) else None, file_default,
                                 run.expected.default, removing=run.mode.removes)
    if _foreign(run):  # another owner's runtime (step 2 says whose): its values are theirs, no fix overwrites them
        problems = [q for q in problems if q.code != "containerd.reads.value_differs"]
    beside = _changed_beside(run, dump)
    if beside is not None:
        problems.append(beside)
    run.readings[ID] = (reading, rows)
    stale = _not_regenerated(run, reading)
    if stale is not None:  # containerd was asked about the file the distribution wrote before the template changed
        return [stale]
    unknown = ask.version_unknown(reading, p, file_version)
    if unknown is not None:  # the cause of a missing runtime is known: say it instead of "a misplaced table"
        problems = [unknown] + [q for q in problems if q.code != "containerd.reads.runtime_missing"]
    return problems


def _foreign(run) -> bool:
    try:
        return foreign_problem(run, run.effective()) is not None
    except RunbookError:
        return False


def _not_regenerated(run, reading: dict) -> Problem | None:
    """On a template route (k3s/RKE2 config.toml.tmpl, microk8s containerd-template.toml) the distribution writes
    the file containerd reads from the template at its next start only: until then `config dump` shows the old
    file. Steps 1-8 judged the rendering; this says what is pending instead of "containerd dropped the table"."""
    route = run.route
    if route is None or route.edit not in (distro.EDIT_GO_TEMPLATE, distro.EDIT_PLACEHOLDER_TEMPLATE):
        return None
    if reading["runtime"] is not None or not run.rendered():
        return None
    restart = " ".join(route.restart) or "-"
    return Problem.of("containerd.reads.not_regenerated", run.p.config_path, distro=route.distro, template=route.path,
                      generated=route.config, restart=restart, runtime=run.p.runtime_name,
                      runtimes=", ".join(reading["runtime_names"]) or "-")


def message(run) -> Msg | None:
    """What containerd read for the runtime, next to its default runtime."""
    if ID not in run.readings:
        return None
    reading, _ = run.readings[ID]
    version, name = reading["containerd_version"], run.p.runtime_name
    if reading["runtime"] is None:
        return say("ask_containerd.containerd_reads_no_runtime", version=version, name=name)
    rt = reading["runtime"]
    options = rt.get("options") or {}
    seen = (f"runtime_type = {ask.shown(rt.get('runtime_type'))}, BinaryName = {ask.shown(options.get('BinaryName'))}, "
            f"SystemdCgroup = {ask.shown(options.get('SystemdCgroup'))}")
    return say("ask_containerd.containerd_reads_default_runtime", version=version, name=name, seen=seen, default_runtime_name=reading['default_runtime_name'])


def evidence(run) -> dict[str, str]:
    if ID not in run.readings:
        return {}
    reading, rows = run.readings[ID]
    return ask.evidence(reading, rows, run.p)


# The check cell (notebooks/run.ipynb): the files read back as a student would, and what must hold, stated with
# the values this run decided (rb.expected); the plan runs it on the planned state before the first write.
CHECK = """with rb.expect("containerd") as expect:
    dump = rb.ask_containerd()         # containerd --config <config> config dump: the config as containerd reads it
    if dump is not None:               # None: no containerd to ask here, or it refused the config (said below)
        if rb.expected.removing:       # mode=remove: containerd reads the runtime only if the file still has it
            expect.runtime_as_in_file(dump, rb.containerd_config(), runtime_name)
        else:
            nvidia = rb.runtime_table(dump, runtime_name)
            expect.equal(nvidia, "runtime_type", rb.expected.runtime_type)
            expect.equal(nvidia, "options.BinaryName", rb.expected.binary_name)
            expect.boolean(nvidia, "options.SystemdCgroup", rb.expected.systemd_cgroup)
        expect.default_runtime(dump, rb.expected.default)"""

STEP = Step(NUMBER, ID, TITLE, plan, verdict, evidence=evidence, skipped=skipped, message=message, writes=False, judged_in_plan=False, check=CHECK)
