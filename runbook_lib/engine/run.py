"""The run context every step receives: the parameters, the target root, the effective config, every step's
plan and every step's result. No step keeps state of its own.

One plan, one verdict:
- ``preflight()`` plans every step in memory, in order, each on the state the earlier plans would leave
  (the planned bytes are an overlay over the disk). Nothing is written.
- If any plan refuses, an apply run stops there: no file, folder or backup is created or changed.
- Otherwise ``commit(step)`` writes the step's planned files (a mode that writes: apply, remove), and
  ``verdict(step)`` reads the files back from disk with the same rules in every mode: what apply calls passed,
  check passes.

The mode is chosen once, here: ``run.mode`` is its driver (engine/mode.py), asked what it does (its steps,
whether it writes, whether it adds the runtime, how it words a plan); nothing compares the mode's name.
"""

from __future__ import annotations

import os
import posixpath
from contextlib import contextmanager
from dataclasses import replace
from typing import NamedTuple

from runbook_lib.fs import bounded_read
from runbook_lib.findings.errors import ParameterError, RunbookError
from runbook_lib.findings.problem import Problem, unique, words
from runbook_lib.fs import writable
from runbook_lib.findings.catalog import say
from runbook_lib.fs.lock import RootLock
from runbook_lib.engine.params import Params
from runbook_lib.engine.result import StepResult
from runbook_lib.fs.safe_write import WritePlan, commit, ensure_dir, read_bytes, retire, sha256, sweep_stale_temps
from runbook_lib.fs.target import Target
from runbook_lib.fs.plan import Plan
from runbook_lib.steps.base import (BLOCKED, CHANGED, FAILED, PASSED, RESTART_CODES, RESTART_NEEDED, SAME_CAUSE,
                                    SKIPPED, UNCHANGED, Step, blocked_by)
from runbook_lib.fs.applied_record import RECORD
from runbook_lib.engine import check_cells
from runbook_lib.engine import expected
from runbook_lib.engine import profile
from runbook_lib.engine import guard, route
from runbook_lib.engine import mode as modes
from runbook_lib.containerd.distro.detect import EDIT_CONFIG
from runbook_lib.containerd.edit import RuntimeWanted
from runbook_lib.containerd.effective import load_effective, read_version
from runbook_lib.containerd.variants import runtime_variants
from runbook_lib.containerd.tables import get_in
from runbook_lib.containerd.versions import format_path, main_table, runtime_table, runtimes_table
from runbook_lib.steps.options import options_paths
from runbook_lib.fs import applied_record


def _wanted(p: Params) -> RuntimeWanted:
    """The runtime the run registers, as containerd/edit.py's planners take it."""
    return RuntimeWanted(p.runtime_name, p.binary_name, p.systemd_cgroup)


class StepCommit(NamedTuple):
    """A step as its commit left it; the problems are the commit's own (a write that failed, the record left
    unwritten), which every verdict after it keeps."""
    status: str
    message: object
    problems: list


class Run:
    def __init__(self, params: Params):
        # lab or node, decided once with its reason (engine/profile.py); what follows it is resolved in the params
        self.profile = profile.decide(params)
        self.cgroup_auto = params.systemd_cgroup == profile.AUTO  # decided from the config (choose_route)
        params = profile.resolved(params, self.profile)
        self.layout_reason = None               # why layout=auto chose what it chose (choose_route)
        self.p = params
        self.target = Target(params.root)
        if params.systemd_cgroup == profile.AUTO:  # a node's: its config as found (choose_route reads it again)
            params = replace(params, systemd_cgroup=profile.systemd_cgroup(
                profile.AUTO, lambda: load_effective(self.target, params.config_path)))
            self.p = params
        self.wanted = _wanted(params)
        self.mode = modes.of(params)  # apply, check or remove: chosen once, asked for its behaviour
        self.steps = self.mode.steps
        self.plans: dict[str, Plan] = {}
        self.results: dict[str, StepResult] = {}    # by step id, as the plans are
        self._committed: dict[str, StepCommit] = {}
        self.written: list[str] = []            # lab paths this run wrote (the restart decision reads it)
        self._recorded = False                  # whether the plans' writes are in the record (apply mode)
        self._record_before = None              # the record as earlier runs left it (what they created)
        self._overlay: dict[str, bytes] | None = None
        self._lock: RootLock | None = None
        self._cache: tuple | None = None
        self.readings: dict[str, object] = {}   # what a step learnt from a program (containerd's own reading)
        # the node profile's answer files (default.txt, ...): never written on the node, read from here instead
        self.evidence_files: dict[str, bytes] = {}
        self.asked = params                     # the parameters as given (self.p may follow the distribution)
        self.route = None                       # the distribution's route (engine/route.py), once planned
        self.route_refusal: Problem | None = None
        self._expected = None                   # what this run decided must hold (engine/expected.py), once
        self.quiet = False                      # set while the check cells run on the planned state: they show nothing

    # --- lifecycle -----------------------------------------------------------------------------------

    def start(self) -> "Run":
        """Take the root's lock (check mode: only wait for a running apply, create nothing)."""
        self._lock = RootLock(self.target, shared=not self.mode.writes).acquire()
        if self.mode.writes:
            try:  # temp files sit next to the file they replace: through a symlink, that is the link's folder
                for folder in {posixpath.dirname(self.p.config_path), self.p.toolkit_dir, posixpath.dirname(RECORD),
                               posixpath.dirname(self.p.cdi_spec), posixpath.join(posixpath.dirname(self.p.config_path), "conf.d")}:
                    sweep_stale_temps(self.target.resolve(folder))
            except BaseException:
                self.finish()  # never keep the lock after a failed start (an interactive kernel lives on)
                raise
        return self

    def finish(self) -> None:
        if self._lock:
            self._lock.release()

    def holds_lock(self, path) -> bool:
        """Whether this run holds the root's lock on that file (removed when the run ends: fs/lock.py)."""
        return self._lock is not None and self._lock.fd is not None and self._lock.path == path

    def relock(self) -> None:
        """Take the root's lock again after finish() released it (a run a failed check stopped, which a
        student goes on with in JupyterLab); a run that holds it, or never took it, is left as it is."""
        if self._lock is not None and self._lock.fd is None:
            self._lock.acquire()

    # --- what the steps read: the planned state during preflight, the disk otherwise ----------------

    def tk(self, name: str) -> str:
        return f"{self.p.toolkit_dir.rstrip('/')}/{name}"

    @property
    def answer_files(self) -> bool:
        """The lab's answer files under toolkit_dir are written (the lab profile); a node gets none of them,
        their facts are the run's evidence (evidence_files, each step's record)."""
        return self.p.profile != profile.NODE

    def _keep_as_evidence(self, plan: Plan) -> None:
        """The node profile: the plan's answer files become evidence, never written (step 1 makes no toolkit
        folder for them either: steps/prepare.py)."""
        mine = [w for w in plan.writes if w.lab_path.startswith(self.tk(""))]
        if not mine:
            return
        plan.writes = [w for w in plan.writes if w not in mine]
        plan.evidence += mine
        for w in mine:
            self.evidence_files[w.lab_path] = w.new
        plan.notes.append(say("profile.node.evidence_only"))

    def title(self, step):
        """The step's title in this run's world: a node's has no answer file in it (the catalog's title.<id>.node)."""
        from runbook_lib.findings.problem import catalog
        code = f"title.{step.id}.node"
        return say(code) if not self.answer_files and code in catalog() else step.title

    def _read_fact(self, step) -> str | None:
        """The node profile: the step's answer-file facts read from the node's files as they are now (after this
        run's writes; check mode: as found), kept as the run's evidence in place of the plan's and judged by the
        step's verdict; None in a lab (the student's own file is read) or for a step with no such fact."""
        plan = self.plans.get(step.id)
        if self.answer_files or step.fact is None or plan is None or self._overlay is not None:
            return None
        lab = next((w.lab_path for w in plan.evidence if w.lab_path.startswith(self.tk(""))), None)
        if lab is None:
            return None
        try:
            text = step.fact(self)
        except RunbookError:  # a config that cannot be read: the step's verdict says why, no fact stands
            self.evidence_files.pop(lab, None)
            return None
        self.evidence_files[lab] = text.encode()
        return text

    def path(self, lab_path: str):
        """The file on this machine that a lab path names (resolved under the root, links as in a chroot)."""
        return self.target.resolve(lab_path)

    def read_bytes(self, lab_path: str) -> bytes | None:
        if self._overlay is not None and lab_path in self._overlay:
            return self._overlay[lab_path]
        if lab_path in self.evidence_files:
            return self.evidence_files[lab_path]
        return read_bytes(self.target.resolve(lab_path), self.kind_of(lab_path), lab_path)

    def kind_of(self, lab_path: str) -> str:
        """Which size limit a file of the root is read under (runbook_lib.fs.bounded_read.LIMITS)."""
        if lab_path == self.tk("runtimeclass.yaml"):
            return "runtimeclass"
        if lab_path.startswith(self.tk("")):
            return "toolkit"
        return bounded_read.kind_for(lab_path)

    def read_text(self, lab_path: str) -> str | None:
        data = self.read_bytes(lab_path)
        return None if data is None else data.decode("utf-8", "replace")

    def is_dir(self, lab_path: str) -> bool:
        host = self.target.resolve(lab_path)  # compared as resolved paths: a folder may be reached through a link
        planned = self._overlay is not None and any(host == self.target.resolve(d)
                                                    for plan in self.plans.values() for d in plan.dirs)
        return planned or host.is_dir()

    def effective(self):
        """The config containerd will use (the main file merged with its imports), re-read only when one of its
        files changed: every step reads it, most of them more than once."""
        rendered = self.rendered()
        if self._overlay is not None or rendered:
            return load_effective(self.target, self.p.config_path, overlay={**(self._overlay or {}), **rendered})
        if self._cache is not None and self._cache[0] == self._fingerprint(self._cache[1]):
            return self._cache[1]
        eff = load_effective(self.target, self.p.config_path)
        self._cache = (self._fingerprint(eff), eff)
        return eff

    def _fingerprint(self, eff) -> tuple:
        out = []
        for lab in [self.p.config_path] + [f.lab_path for f in eff.files] + eff.missing_imports:
            host = self.target.resolve(lab)
            for probe in (host, host.parent):  # a new file in an imported folder changes the folder's mtime
                try:
                    st = os.stat(probe)
                    out.append((str(probe), st.st_ino, st.st_mtime_ns, st.st_size))
                except OSError:
                    out.append((str(probe), None))
        return tuple(out)

    def plan_write(self, lab_path: str, new: bytes, *, mode: int | None = None) -> WritePlan:
        """A write planned against the state the earlier plans leave."""
        return WritePlan(self.target, lab_path, self.target.resolve(lab_path), self.read_bytes(lab_path), new, mode)

    def missing_dirs(self, lab_path: str) -> list[str]:
        if self.is_dir(lab_path):
            return []
        return ensure_dir(self.target, lab_path, dry_run=True)

    @contextmanager
    def planning(self):
        """Read through the planned writes made so far (preflight only)."""
        self._overlay = {}
        try:
            yield
        finally:
            self._overlay = None

    # --- what a check cell reads, as a student would (the cells' `rb`) ----------------------------------

    @property
    def expected(self):
        """What this run decided the files and containerd must hold (engine/expected.py): the check cells'
        assertions name these values, and the verdicts judge by the same rules."""
        if self._expected is None:  # a run judged without a preflight (a test, a tool): decided on first use
            self._expected = expected.decide(self)
        return self._expected

    def note(self, line: str) -> None:
        """What a cell's read says ("tomllib: <files> (version 2)"): shown by the notebook's run context."""

    @property
    def config_path(self) -> str:
        """The config containerd reads: the config_path parameter, or the distribution's own (k3s, RKE2, ...)."""
        return self.p.config_path

    def containerd_config(self) -> dict:
        """The config containerd will use, read with tomllib: the main file merged with its imports (an
        unreadable file gives {} here; its finding, with line and column, is in the step's verdict)."""
        try:
            eff = self.effective()
        except RunbookError:
            return {}
        self.note(f"tomllib: {', '.join(f.lab_path for f in eff.files)} (version {eff.version})")
        return eff.data

    def version(self, cfg: dict) -> int | None:
        """cfg's config version as containerd reads it (no version line: 1)."""
        try:
            return read_version(cfg, path=self.p.config_path, empty=not cfg)
        except RunbookError:
            return None

    def _table(self, cfg: dict, table_of) -> dict:
        version = self.version(cfg)
        if version is None:
            return {}
        table, where = table_of(version)
        self.note(f"version {version} → {where}")
        return table if isinstance(table, dict) else {}

    def runtime_table(self, cfg: dict, name: str) -> dict:
        """cfg's table for the runtime, at the path of the config's version (shown)."""
        return self._table(cfg, lambda version: runtime_table(cfg, version, name))

    def options_tables(self, cfg: dict, name: str) -> list[dict]:
        """cfg's tables holding the runtime's options, the ones step 3's verdict judges (shown): the runtime's, at
        the path of the config's version, or, while it stands misplaced (step 2's finding), each misplaced one."""
        version = self.version(cfg)
        try:
            found = [(get_in(cfg, path), format_path(path)) for path in options_paths(self.effective(), name)] \
                if version is not None else []
        except RunbookError:  # an unreadable config: the runtime's path, where nothing is (step 2 says why)
            found = []
        if not found:
            return [self.runtime_table(cfg, name)]
        for _, where in found:
            self.note(f"version {version} → {where}")
        return [table if isinstance(table, dict) else {} for table, _ in found]

    def containerd_table(self, cfg: dict) -> dict:
        """cfg's containerd table of the CRI plugin (default_runtime_name, runtimes), at the version's path."""
        return self._table(cfg, lambda version: main_table(cfg, version))

    def runtime_names(self, cfg: dict) -> list[str]:
        """The names of the runtimes in cfg at its version's path, in the order tomllib gives them."""
        version = self.version(cfg)
        table = runtimes_table(cfg, version)[0] if version is not None else None
        return list(table) if isinstance(table, dict) else []

    def load_yaml(self, lab_path: str) -> dict:
        """yaml.safe_load of the file; {} when it is missing or not a YAML mapping (the verdict says why)."""
        from runbook_lib.fs.yamldoc import safe_load
        try:
            doc = safe_load(self.read_text(lab_path) or "")
        except Exception:  # noqa: BLE001 - a broken file is the verdict's finding, with its line
            return {}
        return doc if isinstance(doc, dict) else {}

    def read(self, lab_path: str) -> str | None:
        """The file's text; None when it is missing or is no file (a folder made by `mkdir -p` of the file's
        path: the step's verdict says so, with the fix)."""
        try:
            return self.read_text(lab_path)
        except ParameterError:
            raise  # the cell's own path is wrong ("etc/..." without its '/'): said so, not read as a missing file
        except RunbookError:
            return None

    def ask_containerd(self) -> dict | None:
        """containerd's own reading of the config (`containerd --config <config> config dump`, parsed), asked once
        for the check cell and its verdict; None when there is no containerd to ask or it refused the config (the
        step's verdict says why)."""
        from runbook_lib.steps import ask_containerd
        return ask_containerd.ask_now(self)

    # --- one plan ------------------------------------------------------------------------------------

    def choose_route(self) -> None:
        """Which distribution's containerd this is, and the file it really reads (engine/route.py)."""
        self.route, self.route_refusal, self.p = route.choose(self)
        layout, self.layout_reason = profile.layout_for(self)  # layout=auto follows the profile and the config
        if layout != self.p.layout:
            self.p = replace(self.p, layout=layout)
        if self.cgroup_auto and self.p.profile == profile.NODE:
            # the file the distribution's containerd really reads, as it is before the run writes
            cgroup = profile.systemd_cgroup(profile.AUTO, self.effective)
            if cgroup is not self.p.systemd_cgroup:
                self.p = replace(self.p, systemd_cgroup=cgroup)
                self.wanted = _wanted(self.p)

    @property
    def on_distro(self) -> bool:
        """A distribution's route other than a containerd config the runbook edits itself."""
        return self.route is not None and self.route.edit != EDIT_CONFIG

    def rendered(self) -> dict[str, bytes]:
        """A distribution's generated config as the distribution would render it from the planned template."""
        return route.rendered(self)

    def empty_config_version(self) -> int:
        """The version an empty config is written for: the node's containerd decides, when there is one to ask."""
        return route.empty_config_version(self)

    def effective_with(self, changes: dict[str, bytes]):
        """The effective config with ``changes`` (lab path -> bytes) over the state planned so far."""
        return load_effective(self.target, self.p.config_path, overlay={**(self._overlay or {}), **changes})

    def mirror(self, **changes) -> "Run":
        """Another run on the same root with some parameters changed, not started: to plan what such a run would
        write (mode=remove asks what an apply with or without the variants wrote)."""
        return Run(replace(self.p, **changes))

    def preflight(self) -> dict[str, Plan]:
        """Plan every step before anything is written; each plan sees the earlier plans' writes."""
        self.plans = {}
        self._recorded = False  # new plans: the record is written again, with them, before the next write
        self.choose_route()
        self._expected = expected.decide(self)  # on the config as it is, before any plan: the node's default is the node's
        folders: set = set()  # the folders the plans so far create, resolved once each
        unplanned = None  # the first step whose plan refused: the folders it would make are not planned
        with self.planning():
            for step in self.steps:
                try:
                    plan = step.plan(self)
                except RunbookError as exc:
                    plan = Plan(exc.what, refusals=[Problem.from_error(exc)])
                    unplanned = step.number if unplanned is None else unplanned
                if not self.answer_files:
                    self._keep_as_evidence(plan)
                self.plans[step.id] = plan
                folders |= {self.target.resolve(d) for d in plan.dirs}
                # what cannot be written (a link out of the root, a read-only mount, chattr +i): refused now
                plan.refusals += writable.refusals(self.target, plan, folders, writes=self.mode.writes,
                                                   after_refusal=unplanned)
                for write in plan.writes:
                    self._overlay[write.lab_path] = write.new
            if self.mode.writes and not self.refusals():  # all the writes must fit, or none is made
                writable.refuse_when_short_of_space(self.target, [self.plans[s.id] for s in self.steps],
                                                    self._record_needs())
            self._judge_planned_state()
            if self.mode.writes and not self.refusals():
                self._ask_containerd_of_plan()
            if self.mode.writes and not self.refusals():
                self.judge_on_plan()
        return self.plans

    def _record_needs(self) -> list:
        """What the record of an apply run takes beside the plans' writes (its folders, its file), counted with
        them so that a disk too short for both refuses before the first write (fs/writable.py)."""
        if not self.mode.adds:
            return []
        writes = [w for s in self.steps for w in self.plans[s.id].writes if w.changed]
        if not writes:
            return []
        try:
            record = applied_record.planned(self.target, writes)
            needs = [(self.target.resolve(d), 0, 1) for d in applied_record.folders_to_make(self.target)]
        except (RunbookError, OSError):
            return []  # a record that cannot be written is the first write's warning (_record), not a refusal
        return needs + (writable.write_needs(record, backup=False) if record.changed else [])

    def _ask_containerd_of_plan(self) -> None:
        """containerd's own reading of the planned state against the node's as it is (engine/guard.py): a plan
        that would make it read anything else differently refuses here, before the first write."""
        found = guard.refusal(self)
        if found is not None:
            self.plans["containerd"].refusals.append(found)  # step 9 asks containerd; apply and remove both run it

    def judge_on_plan(self) -> None:
        """The check cells' own assertions, run on the planned state (engine/check_cells.py): a cell that would
        fail after the writes refuses the run before the first one, whichever entry point runs it."""
        check_cells.judge_planned(self)

    def _judge_planned_state(self) -> None:
        """Every step's verdict on the state the plans would leave: a finding there would fail the run after
        its writes, so it refuses now instead. This is what makes apply's "passed" the same as check's."""
        if self.refusals():
            return
        for step in self.steps:
            if not step.judged_in_plan:
                continue  # it asks a program or acts on the node: judged after the writes
            try:
                found = step.verdict(self)
            except RunbookError as exc:
                found = [Problem.from_error(exc)]
            self.plans[step.id].refusals += [p for p in unique(found) if p.is_error]

    def refusals(self) -> list[tuple[object, Problem]]:
        """(step, problem) for every plan that refuses: an apply run then writes nothing at all."""
        return [(step, prob) for step in self.steps for prob in self.plans.get(step.id, Plan()).refusals]

    @property
    def refused(self) -> bool:
        return self.mode.writes and bool(self.refusals())

    def step(self, step_id: str):
        return next(s for s in self.steps if s.ID == step_id)

    # --- the write, then the verdict -----------------------------------------------------------------

    def commit(self, step) -> StepResult:
        """Apply mode: create the planned folders and write the planned files (backup first, atomic rename).
        Check mode, or a refused run: nothing. The result starts as changed or unchanged."""
        plan = self.plans[step.id]
        result = StepResult(step.number, step.id, self.title(step), UNCHANGED, plan.message, notes=list(plan.notes))
        result.diff = plan.diff or None
        result.message = self.mode.said(plan.message, changes=plan.changed and not plan.others_repair)
        if not self.mode.writes or self.refused:
            self._keep(result)
            return result
        for folder in plan.dirs:
            if ensure_dir(self.target, folder):
                result.status = CHANGED
        for write in plan.writes:
            result.files.append(self._file(write.lab_path, "read", write.old))
            # write.old is what the disk holds once the earlier steps are committed (their planned bytes);
            # a cell run twice finds its own bytes already there and writes nothing.
            if not write.changed or read_bytes(write.host_path) == write.new:
                continue
            if self.mode.adds and not self._recorded:  # what remove undoes, before the first write
                self._record(result)
            try:
                done = commit(write, backup=self._backs_up(write.lab_path, write.old),
                              keep_backups=self.p.keep_backups)
            except RunbookError as exc:  # the disk changed under the plan, or the disk is full: nothing written
                result.status, result.message = FAILED, exc.what
                result.problems.append(Problem.from_error(exc))
                break
            self.written.append(write.lab_path)
            result.status = CHANGED
            result.files.append(self._file(write.lab_path, "written", write.new))
            if done.backup:
                result.backup = self.target.lab_path(done.backup)
                result.files.append({"path": result.backup, "host_path": str(done.backup), "action": "backup",
                                     "sha256": sha256(write.old)})
        for lab in plan.retire:  # mode=remove: the file's bytes are kept as a backup (unless a run made it), then it is gone
            had = read_bytes(self.target.resolve(lab))
            moved = retire(self.target, lab, backup=self._backs_up(lab, had), keep_backups=self.p.keep_backups)
            if had is not None:
                self.written.append(lab)
                result.status = CHANGED
            if moved is not None:
                result.files.append({"path": self.target.lab_path(moved), "host_path": str(moved), "action": "backup",
                                     "sha256": sha256(read_bytes(moved))})
        step.act(self, result)  # a step that acts on the node rather than on files (the restart); else nothing
        earlier_commit = self._committed.get(step.id)
        if result.status == UNCHANGED and earlier_commit is not None and earlier_commit.status == CHANGED:
            # the write cell run again (JupyterLab): what this run wrote the first time is still what it changed
            earlier = self.results[step.id]
            result.status, result.backup = CHANGED, earlier.backup
            result.files = earlier.files + [f for f in result.files if f not in earlier.files]
            result.problems = earlier_commit.problems + result.problems
        self._keep(result)
        return result

    def _backs_up(self, lab_path: str, old: bytes | None) -> bool:
        """Whether a write (or a removal) keeps the file's old bytes as a backup: always, but for a file a run
        created that still holds a run's bytes (fs/applied_record.py): the runbook makes those bytes again."""
        try:
            entries = applied_record.load(self.target)
        except RunbookError:
            return True
        # the record as the runs before this one left it, too: a file an earlier run created holds its bytes
        return not any(applied_record.created_by_a_run(e, lab_path, old) for e in (entries, self._record_before))

    def _record(self, result: StepResult) -> None:
        """Every write the run plans, recorded once before the first (fs/applied_record.py): a run stopped at any
        point has recorded all it wrote."""
        self._recorded = True
        try:
            self._record_before = applied_record.load(self.target)
        except RunbookError:
            self._record_before = None
        writes = [w for s in self.steps for w in self.plans[s.id].writes if w.changed]
        folders = [d for s in self.steps for d in self.plans[s.id].dirs]
        runtimes = [self.wanted.name] + ([f"{self.wanted.name}/{v.name}" for v in runtime_variants(self.wanted)]
                                         if self.p.variants else [])
        try:
            applied_record.note_planned(self.target, writes, folders, runtimes)
        except (RunbookError, OSError) as exc:
            reason = exc.what if isinstance(exc, RunbookError) else str(exc)  # each language its own words
            result.problems.append(Problem.of("remove.record_unwritten", applied_record.RECORD,
                                              record=applied_record.RECORD, reason=reason))

    def _keep(self, result: StepResult) -> None:
        self.results[result.id] = result
        self._committed[result.id] = StepCommit(result.status, result.message, list(result.problems))

    def verdict(self, step) -> StepResult:
        """Read the outcome back from disk: the same rules in apply and check mode."""
        result = self.results.get(step.id) or self.commit(step)
        if self.refused:
            own = [self._refer_to_earlier(step, p) for p in self.plans[step.id].refusals]
            result.status, result.problems = SKIPPED, own
            if own:
                judge(result)
            else:
                result.message = say("run.not_run_another_step")
            return result
        # judged afresh from the commit's outcome: a check cell run again after a fix by hand says what the disk
        # holds now, not the failure it showed before
        result.status, result.message, committed = self._committed[step.id]  # _keep noted it with the result
        fact = self._read_fact(step)
        try:  # not the problems the last verdict found: a check cell run again judges the disk afresh
            found = committed + step.verdict(self)
        except RunbookError as exc:
            found = committed + [Problem.from_error(exc)]
        if not any(p.is_error for p in found):
            found += self._would_create(step)
        result.problems = [self._refer_to_earlier(step, prob) for prob in unique(found)]
        errors = [prob for prob in result.problems if prob.is_error]
        if errors:
            judge(result)
        elif result.status == UNCHANGED and (not self.mode.writes or not step.writes):
            result.status = PASSED  # nothing to write: the verdict is all there is
        said = step.message(self) if not errors else None
        if said is None and fact is not None and not errors:  # a node's fact, as read: never the plan's value
            said = say("node.fact.read", facts=fact.strip().replace("\n", ", "))
        if said is not None:  # what the step learnt (containerd's own reading, the file as read) says more than its plan
            if result.status == CHANGED and result.message != said and result.message not in result.notes:
                result.notes.insert(0, result.message)  # what this run changed (a repair, a move), said beside it
            result.message = said
        reason = step.skipped(self) if not errors else None
        if reason is not None:
            result.status, result.message = SKIPPED, reason
        pending = next((q for q in result.problems if q.code in RESTART_CODES), None)
        if pending is not None and not errors:  # containerd reads the old config until a restart: never passed
            result.status = RESTART_NEEDED  # its message stays what containerd reads now; the finding says why
        try:  # evidence only shows what the files hold: one that cannot be read is the verdict's finding
            result.evidence = step.evidence(self)
        except RunbookError:
            result.evidence = {}
        return result

    def _would_create(self, step) -> list[Problem]:
        """Check mode: a file or folder the plan would create is not there, so the step cannot pass whatever
        else its verdict found; said as the plan it is ("would write ..."), never as a pass. (A rewrite of a
        file its verdict accepts, a final newline added, is no such thing: the file says what it must.)"""
        plan = self.plans.get(step.id)
        if self.mode.writes or plan is None or plan.others_repair:
            return []
        new = list(plan.dirs) + [w.lab_path for w in plan.writes if w.changed and w.old is None]
        if not new:
            return []
        return [Problem.of("run.check_would_create", plan.subject or new[-1], files=new, message=plan.message)]

    def run(self, step) -> StepResult:
        self.commit(step)
        return self.verdict(step)

    def run_all(self) -> dict[str, StepResult]:
        """Every step, as the notebook runs them (the CLI and the tests)."""
        if not self.plans:
            self.preflight()
        for step in self.steps:
            self.run(step)
        return self.results

    def ok(self) -> bool:
        """No step failed (a blocked step's cause is an earlier step's failure, which is counted there)."""
        return not any(r.failed for r in self.results.values())

    def failed_steps(self) -> list[StepResult]:
        return [r for r in self.results.values() if r.failed]

    def _refer_to_earlier(self, step: Step, prob: Problem) -> Problem:
        """A problem already shown in full by an earlier step (an unreadable config breaks every later step) is
        named again briefly, so a student reads its explanation and fix once, and the later step is blocked."""
        for earlier_step in self.steps:
            if earlier_step.id == step.id:
                break
            earlier = self.results.get(earlier_step.id)
            if earlier is None or not any((q.code == prob.code and q.what == prob.what or
                                           SAME_CAUSE.get(prob.code) == q.code) and q.path == prob.path
                                          for q in earlier.problems):
                continue
            return Problem.of("depends.earlier", prob.path, prob.line, col=prob.col, step=earlier_step.number,
                              what=prob.what)
        return prob

    def _file(self, lab_path: str, action: str, data: bytes | None) -> dict:
        return {"path": lab_path, "host_path": str(self.target.resolve(lab_path)), "action": action,
                "sha256": sha256(data)}

    def withdraw_report(self) -> str | None:
        """After a failed apply run, no report.txt may claim a success that did not happen: an earlier run's
        report is moved to a backup (its bytes kept). Check mode and a refused run write nothing."""
        if not self.mode.writes or self.refused or not self.answer_files:
            return None
        from runbook_lib.fs.safe_write import retire
        backup = retire(self.target, self.tk("report.txt"))
        return self.target.lab_path(backup) if backup else None


def judge(result: StepResult) -> None:
    """A result with errors: failed, or blocked when every error only follows from an earlier step's failure."""
    errors = [p for p in result.problems if p.is_error]
    cause = blocked_by(result.problems)
    result.status = BLOCKED if cause is not None else FAILED
    result.message = words("status.blocked", step=cause)[0] if cause is not None else errors[0].what
