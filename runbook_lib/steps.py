"""The eight steps of the lab. Each step acts (apply mode writes, check mode only plans) and is then confirmed
by reading the files back from disk; both feed one StepResult.

Apply and check share every line of this code: check mode is "plan without writing", as Ansible's is.
"""

from __future__ import annotations

import itertools
import posixpath
from importlib import resources

from . import cdi, runtimeclass, toolkit
from .containerd import ask
from .containerd import diagnose, repair
from .containerd.edit import RuntimeWanted, default_runtime_name, plan_runtime, template_runtime
from .containerd.effective import Effective, load_effective
from .containerd.load import load_toml
from .containerd.versions import EMPTY_FILE_VERSION, RUNTIME_TYPE, runtime_path, runtimes_path
from .errors import RunbookError, WriteError
from .lock import RootLock
from .messages import Msg
from .params import Params
from .result import CHANGED, FAILED, PASSED, SKIPPED, UNCHANGED, Problem, StepResult
from .safe_write import WritePlan, commit, ensure_dir, plan_write, read_bytes, sha256, sweep_stale_temps
from .target import Target
from .containerd.tables import get_in

TITLES = {
    1: ("prepare", Msg("폴더 준비와 기본 설정 복사", "Prepare folders and the base config")),
    2: ("runtime", Msg("nvidia 런타임 테이블 추가", "Add the nvidia runtime table")),
    3: ("options", Msg("런타임 옵션 (BinaryName, SystemdCgroup)", "Runtime options (BinaryName, SystemdCgroup)")),
    4: ("default", Msg("기본 런타임 확인 (default.txt)", "Check the default runtime (default.txt)")),
    5: ("parse", Msg("TOML 파싱 검증 (parsed.txt)", "Prove the TOML parses (parsed.txt)")),
    6: ("cdi", Msg("CDI 스펙 (cdi-keys.txt)", "CDI spec (cdi-keys.txt)")),
    7: ("runtimeclass", Msg("RuntimeClass 작성", "Write the RuntimeClass")),
    8: ("report", Msg("검증 보고서 (report.txt)", "Verification report (report.txt)")),
    9: ("containerd", Msg("containerd 에게 직접 확인", "Ask containerd itself")),
}


class StepFailed(RuntimeError):
    """Raised by a notebook cell in apply mode so that papermill stops the run and exits non-zero."""


class Runbook:
    def __init__(self, params: Params):
        self.p = params
        self.target = Target(params.root)
        self.results: dict[int | str, StepResult] = {}
        self._lock: RootLock | None = None
        self.wanted = RuntimeWanted(params.runtime_name, params.binary_name, params.systemd_cgroup)

    # --- lifecycle -----------------------------------------------------------------------------------

    def start(self) -> "Runbook":
        """Take the root's lock (check mode: only wait for a running apply, create nothing)."""
        self._lock = RootLock(self.target, shared=self.p.check_only).acquire()
        if not self.p.check_only:
            try:  # temp files sit next to the file they replace: through a symlink, that is the link's folder
                dropin_dir = posixpath.join(posixpath.dirname(self.p.config_path), "conf.d")
                for folder in {self.target.resolve(self.p.config_path).parent, self.target.resolve(self.p.toolkit_dir),
                               self.target.resolve(self.p.cdi_spec).parent, self.target.resolve(dropin_dir)}:
                    sweep_stale_temps(folder)
            except BaseException:
                self.finish()  # never keep the lock after a failed start (an interactive kernel lives on)
                raise
        return self

    def finish(self) -> None:
        if self._lock:
            self._lock.release()

    @property
    def toolkit(self) -> str:
        return self.p.toolkit_dir.rstrip("/")

    def tk(self, name: str) -> str:
        return f"{self.toolkit}/{name}"

    # --- running a step ------------------------------------------------------------------------------

    def run(self, n: int) -> StepResult:
        """Act, then confirm from disk (the CLI and the tests; the notebook calls the two separately)."""
        self.act(n)
        return self.confirm(n)

    def act(self, n: int) -> StepResult:
        """Apply mode writes, check mode only plans. A user's problem becomes a failed result, never a traceback."""
        step_id, title = TITLES[n]
        try:
            result = getattr(self, f"_act_{n}")()
        except RunbookError as exc:
            result = StepResult(n, step_id, title, FAILED, exc.what, problems=[Problem.from_error(exc)])
        result.step, result.id, result.title = n, step_id, title
        self.results[n] = result
        return result

    def confirm(self, n: int) -> StepResult:
        """Read the outcome back from disk, independently of what act() believed it did."""
        result = self.results.get(n) or self.act(n)
        if not (self.p.check_only and result.status == FAILED and result.problems):
            try:
                found = getattr(self, f"_check_{n}")()
            except RunbookError as exc:
                found = [Problem.from_error(exc)]
            for prob in found:
                if all(prob.what != q.what for q in result.problems):
                    result.problems.append(prob)
        result.problems = [self._refer_to_earlier(n, prob) for prob in result.problems]
        if result.problems:
            if result.status != FAILED:
                result.message = result.problems[0].what
            result.status = FAILED
        elif self.p.check_only and result.status != SKIPPED:  # a check that could not run stays skipped
            result.status = PASSED
        result.evidence = self.evidence(n)
        return result

    def _refer_to_earlier(self, n: int, prob: Problem) -> Problem:
        """A problem already shown in full by an earlier step (an unreadable config breaks every later step)
        is named again briefly, so a student reads its explanation and fix once."""
        for k, earlier in sorted((k, r) for k, r in self.results.items() if isinstance(k, int) and k < n):
            if any(q.what == prob.what and q.path == prob.path for q in earlier.problems):
                return Problem(Msg(f"{k}단계에서 본 문제 때문에 이 단계를 확인할 수 없습니다: {prob.what.ko}",
                                   f"this step cannot be checked because of the problem shown in step {k}: {prob.what.en}"),
                               Msg(f"{k}단계의 고치는 방법을 따르세요.", f"follow step {k}'s fix."), prob.path, prob.line,
                               col=prob.col)
        return prob

    def evidence(self, n: int) -> dict[str, str]:
        """What a person should see read back from disk for this step."""
        files = {4: ["default.txt"], 5: ["parsed.txt"], 6: ["cdi-keys.txt"], 7: ["runtimeclass.yaml"], 8: ["report.txt"]}
        out = {}
        if n in (2, 3):
            try:
                eff = self.effective()
                table = get_in(eff.data, runtime_path(eff.version, self.p.runtime_name))
                if table is not None:
                    out[f"{self.p.config_path} (tomllib)"] = _show_table(table)
            except RunbookError:
                pass
        if n == 9 and getattr(self, "_reading", None):
            out.update(ask.evidence(self._reading, self._compare()[0], self.p))
        for name in files.get(n, []):
            text = self._read_text(self.tk(name))
            if text is not None:
                out[self.tk(name)] = text
        return out

    def withdraw_report(self) -> str | None:
        """After a failed apply run, no report.txt may claim a success that did not happen: an earlier run's
        report is moved to a backup (its bytes kept). Check mode writes nothing, so it leaves it."""
        if self.p.check_only:
            return None
        from .safe_write import retire
        backup = retire(self.target, self.tk("report.txt"))
        return self.target.lab_path(backup) if backup else None

    def ok(self) -> bool:
        return not any(r.failed for r in self.results.values())

    # --- helpers -------------------------------------------------------------------------------------

    def _write(self, plan: WritePlan, result: StepResult) -> None:
        """Apply mode writes (atomic, backed up); check mode reports the difference as the verdict."""
        result.files.append(self._file(plan.lab_path, "read", plan.old))
        if not plan.changed:
            return
        result.diff = (result.diff or "") + plan.diff()
        if self.p.check_only:
            return
        done = commit(plan)
        result.status = CHANGED
        result.files.append(self._file(plan.lab_path, "written", plan.new))
        if done.backup:
            result.backup = self.target.lab_path(done.backup)
            result.files.append({"path": result.backup, "host_path": str(done.backup), "action": "backup",
                                 "sha256": sha256(plan.old)})

    def _file(self, lab_path: str, action: str, data: bytes | None) -> dict:
        return {"path": lab_path, "host_path": str(self.target.resolve(lab_path)), "action": action,
                "sha256": sha256(data)}

    def effective(self) -> Effective:
        """The effective config, re-read only when one of its files (or a folder an import globs) changed:
        every step reads it, most of them more than once."""
        cached = getattr(self, "_effective", None)
        if cached is not None and cached[0] == self._fingerprint(cached[1]):
            return cached[1]
        eff = load_effective(self.target, self.p.config_path)
        self._effective = (self._fingerprint(eff), eff)
        return eff

    def _fingerprint(self, eff: Effective) -> tuple:
        import os
        paths = [self.p.config_path] + [f.lab_path for f in eff.files] + eff.missing_imports
        out = []
        for lab in paths:
            host = self.target.resolve(lab)
            for probe in (host, host.parent):  # a new file in an imported folder changes the folder's mtime
                try:
                    st = os.stat(probe)
                    out.append((str(probe), st.st_ino, st.st_mtime_ns, st.st_size))
                except OSError:
                    out.append((str(probe), None))
        return tuple(out)

    def _read_text(self, lab_path: str) -> str | None:
        data = read_bytes(self.target.resolve(lab_path))
        return None if data is None else data.decode("utf-8", "replace")

    def _new(self, n: int, message: Msg) -> StepResult:
        step_id, title = TITLES[n]
        return StepResult(n, step_id, title, UNCHANGED, message)

    # --- 1: folders and the base config ---------------------------------------------------------------

    def _act_1(self) -> StepResult:
        p = self.p
        created = []
        for folder in (posixpath.dirname(p.config_path), self.toolkit):
            created += ensure_dir(self.target, folder, dry_run=p.check_only)
        config = self.target.resolve(p.config_path)
        current = read_bytes(config)
        r = self._new(1, Msg("config.toml 이 이미 있어 그대로 둡니다 (실제 노드의 설정은 실습용 기본 설정으로 덮어쓰지 않습니다).",
                             "config.toml already exists and is kept (a node's real config is never replaced by the lab's base)."))
        if current is None or not current.strip():
            base = self.target.resolve(p.base_config)
            source = read_bytes(base)
            origin = p.base_config
            if source is None:
                source = (resources.files("runbook_lib") / "data" / "config.toml.base").read_bytes()
                origin = "runbook_lib/data/config.toml.base"
            r.files.append({"path": origin, "host_path": str(base) if origin == p.base_config else origin,
                            "action": "read", "sha256": sha256(source)})
            r.message = Msg(f"{origin} 를 {p.config_path} 로 복사했습니다.", f"copied {origin} to {p.config_path}.")
            if p.check_only:
                r.problems.append(Problem(
                    Msg(f"{p.config_path} 가 {'비어 있습니다' if current is not None else '없습니다'}.",
                        f"{p.config_path} is {'empty' if current is not None else 'missing'}."),
                    Msg(f"cp {p.base_config} {p.config_path}", f"cp {p.base_config} {p.config_path}"), p.config_path))
            self._write(plan_write(self.target, p.config_path, source, mode=0o644), r)
        else:
            r.files.append(self._file(p.config_path, "read", current))
        if created:
            if not p.check_only:  # check mode: _check_1 names each missing folder
                r.status = CHANGED
                r.notes.append(Msg(f"폴더를 만들었습니다: {', '.join(created)}", f"created folders: {', '.join(created)}"))
        return r

    def _check_1(self) -> list[Problem]:
        problems = []
        for folder in (posixpath.dirname(self.p.config_path), self.toolkit):
            if not self.target.resolve(folder).is_dir():
                problems.append(Problem(Msg(f"폴더가 없습니다: {folder}", f"the folder is missing: {folder}"),
                                        Msg(f"mkdir -p {folder}", f"mkdir -p {folder}"), folder))
        data = read_bytes(self.target.resolve(self.p.config_path))
        if data is None or not data.strip():
            problems.append(Problem(Msg(f"{self.p.config_path} 가 없거나 비어 있습니다.", f"{self.p.config_path} is missing or empty."),
                                    Msg(f"cp {self.p.base_config} {self.p.config_path}",
                                        f"cp {self.p.base_config} {self.p.config_path}"), self.p.config_path))
        return problems

    # --- 2: the runtime table (written together with its options: one atomic edit) -------------------

    def _act_2(self) -> StepResult:
        eff = self.effective()
        r = self._new(2, Msg(f"{self.p.runtime_name} 런타임이 이미 등록되어 있습니다.",
                             f"the {self.p.runtime_name} runtime is already registered."))
        moved = repair.move_stray_runtime(eff, self.p.runtime_name) if self.p.layout != "dropin" else None
        blockers = diagnose.blockers(eff, self.p, strays=moved is None or self.p.check_only)
        if blockers:
            r.status = FAILED
            r.message = blockers[0].what
            r.problems += blockers
            if moved:  # check mode: show the move apply mode would make
                r.diff = plan_write(self.target, moved.lab_path, eff.file(moved.lab_path).encode(moved.text)).diff()
                r.notes += [Msg("apply 모드라면 아래 diff 처럼 옮깁니다:", "apply mode would move it as in the diff below:")]
                r.notes += moved.notes
            return r
        if moved:  # the rest of the step works on the moved text; one write, one diff, one backup
            eff = load_effective(self.target, self.p.config_path,
                                 overlay={moved.lab_path: eff.file(moved.lab_path).encode(moved.text)})
        if self.p.layout == "dropin":
            return self._act_2_dropin(eff, r)
        owner = diagnose.owner_file(eff, self.p.runtime_name)
        template, source = template_runtime(eff.data, eff.version, self.wanted)
        text = owner.text
        data = owner.data
        if owner is eff.main and eff.main.empty and "version" not in data:
            text = f"version = {EMPTY_FILE_VERSION}\n\n" + text  # say which version the tables are written for
            data = {"version": EMPTY_FILE_VERSION, **data}
        extra = []
        default = default_runtime_name(eff.data, eff.version)
        if default != self.p.runtime_name and get_in(eff.data, runtime_path(eff.version, default)) is None:
            # No runtimes in the config means containerd's built-in runc; once any runtime table exists, the
            # built-in one is gone (containerd 1.6, tests/fixtures/broken), so the default must be written too.
            base = plan_runtime(text, data, eff.version, RuntimeWanted(default, "", False), {"runtime_type": RUNTIME_TYPE},
                                lab_path=owner.lab_path)
            text, data = base.text, load_toml(base.text.encode(), owner.lab_path).data
            extra = base.notes + [Msg(f"설정에 런타임이 하나도 없어 containerd 의 내장 기본값 {default} 도 함께 적었습니다 "
                                      f"(런타임 테이블이 하나라도 생기면 내장 {default} 는 사라집니다).",
                                      f"the config had no runtimes, so containerd's built-in {default} was written too "
                                      f"(as soon as any runtime table exists, the built-in {default} is gone).")]
        plan = plan_runtime(text, data, eff.version, self.wanted, template, lab_path=owner.lab_path, source_name=source)
        write = plan_write(self.target, owner.lab_path, owner.encode(plan.text))
        if write.changed:
            r.message = plan.notes[0] if plan.notes else (plan.repairs[0] if plan.repairs else r.message)
            r.notes += [m for m in extra + plan.notes[1:] + plan.repairs if m != r.message]
            if moved:
                r.message, r.notes = moved.notes[0], extra + plan.notes + plan.repairs
            if source and get_in(eff.data, runtime_path(eff.version, self.p.runtime_name)) is None:
                r.notes.append(Msg(f"새 런타임은 기본 런타임 {source} 의 테이블을 복사해 시작했습니다.",
                                   f"the new runtime started as a copy of the default runtime {source}'s table."))
            after = load_effective(self.target, self.p.config_path, overlay={owner.lab_path: write.new})
            diagnose.require_runtime(after, self.p, owner.lab_path)
            if self.p.check_only:
                # Past-tense edit notes would read as done; the verdicts come from _check_2/_check_3.
                r.message = Msg("apply 모드라면 아래 diff 처럼 고칩니다.", "apply mode would make the change in the diff below.")
                r.notes = [n for n in r.notes if n not in plan.notes + plan.repairs]
                if get_in(eff.data, runtime_path(eff.version, self.p.runtime_name)) is None:
                    r.problems.append(Problem(
                        Msg(f"{self.p.runtime_name} 런타임 테이블이 없습니다.", f"there is no {self.p.runtime_name} runtime table."),
                        Msg(f"아래 diff 의 + 줄을 적으세요 (헤더: {diagnose.header_text(eff, runtime_path(eff.version, self.p.runtime_name))}).",
                            f"write the diff's + lines (header: {diagnose.header_text(eff, runtime_path(eff.version, self.p.runtime_name))})."),
                        owner.lab_path, why=Msg("등록되지 않은 런타임은 RuntimeClass 로 고를 수 없습니다.",
                                                "a runtime that is not registered cannot be selected by a RuntimeClass.")))
        r.notes += diagnose.warnings(eff, self.p)
        self._write(write, r)
        return r

    def _act_2_dropin(self, eff: Effective, r: StepResult) -> StepResult:
        """layout=dropin (containerd/dropin.py): the planned files are verified on the effective config first."""
        from .containerd import dropin  # only for layout=dropin
        plan = dropin.plan_dropin(self.target, self.p, eff, self.wanted)
        r.notes += plan.notes + diagnose.warnings(eff, self.p)
        if plan.changed:
            r.message = plan.message
            ensure_dir(self.target, plan.folder, dry_run=self.p.check_only)
            if self.p.check_only:
                r.problems.append(Problem(plan.message + Msg("(아직 쓰지 않았습니다)", "(not written yet)"),
                                          Msg("apply 모드로 실행하세요.", "run in apply mode."), plan.writes[0].lab_path))
        elif not plan.writes:
            r.message = plan.message
        for write in plan.writes:
            self._write(write, r)
        return r

    def _check_2(self) -> list[Problem]:
        return diagnose.runtime_problems(self.effective(), self.p, part="runtime")

    # --- 3: the options ------------------------------------------------------------------------------

    def _act_3(self) -> StepResult:
        eff = self.effective()
        table = get_in(eff.data, runtime_path(eff.version, self.p.runtime_name) + ("options",)) or {}
        from .containerd.render import value
        shown = ", ".join(f"{k} = {value(table[k]) if k in table else '(없음/missing)'}" for k in ("BinaryName", "SystemdCgroup"))
        return self._new(3, Msg(f"2단계에서 함께 적은 options 를 다시 읽었습니다: {shown}",
                                f"read back the options written together in step 2: {shown}"))

    def _check_3(self) -> list[Problem]:
        return diagnose.runtime_problems(self.effective(), self.p, part="options")

    # --- 4: default.txt ------------------------------------------------------------------------------

    def _act_4(self) -> StepResult:
        eff = self.effective()
        default = default_runtime_name(eff.data, eff.version)
        r = self._new(4, Msg(f"기본 런타임은 {default} 입니다.", f"the default runtime is {default}."))
        problem = diagnose.default_problem(eff, self.p)
        if problem:
            r.status, r.message = FAILED, problem.what
            r.problems.append(problem)
            return r
        self._write(plan_write(self.target, self.tk("default.txt"), toolkit.default_txt(default).encode()), r)
        return r

    def _check_4(self) -> list[Problem]:
        eff = self.effective()
        problems = [p for p in [diagnose.default_problem(eff, self.p)] if p]
        expected = toolkit.default_txt(default_runtime_name(eff.data, eff.version))
        return problems + self._expect_file(self.tk("default.txt"), expected)

    def _expect_file(self, lab_path: str, expected: str) -> list[Problem]:
        got = self._read_text(lab_path)
        if got == expected:
            return []
        shown = expected.strip().replace("\n", " / ")
        why = Msg("이 파일은 설정에서 다시 읽은 값의 증거입니다. 설정과 다르면 증거가 되지 못합니다.",
                  "this file is the evidence of what the config says; if it disagrees with the config, it proves nothing.")
        if got is None:
            return [Problem(Msg(f"{lab_path} 가 없습니다.", f"{lab_path} is missing."),
                            Msg(f"다음 내용으로 만드세요: {shown}", f"create it with: {shown}"), lab_path, why=why)]
        pairs = list(itertools.zip_longest(got.splitlines(), expected.splitlines()))
        wrong = [(i + 1, g, e) for i, (g, e) in enumerate(pairs) if g != e]
        if not wrong:  # same lines, different line endings or a missing final newline
            return [Problem(Msg(f"{lab_path} 의 줄바꿈이 다릅니다 (각 줄은 \\n 하나로 끝나야 합니다).",
                                f"{lab_path} has different line endings (every line must end in one \\n)."),
                            Msg(f"내용을 정확히 이렇게 적으세요: {shown}", f"write exactly: {shown}"), lab_path, why=why)]
        line, g, e = wrong[0]
        ko = "; ".join(f"{n}번째 줄 {x if x is not None else '(없음)'} → {y if y is not None else '(지울 줄)'}" for n, x, y in wrong)
        en = "; ".join(f"line {n} {x if x is not None else '(missing)'} → {y if y is not None else '(delete)'}" for n, x, y in wrong)
        return [Problem(Msg(f"{lab_path} 가 설정에서 읽은 값과 다릅니다: {ko}", f"{lab_path} disagrees with the config: {en}"),
                        Msg(f"내용을 정확히 이렇게 적으세요: {shown}", f"write exactly: {shown}"), lab_path, line, why=why)]

    # --- 5: parsed.txt -------------------------------------------------------------------------------

    def _parsed(self) -> tuple[str, list[str]]:
        eff = self.effective()
        runtimes = sorted((get_in(eff.data, runtimes_path(eff.version)) or {}).keys())
        return toolkit.parsed_txt(eff.version, runtimes), runtimes

    def _act_5(self) -> StepResult:
        content, runtimes = self._parsed()
        r = self._new(5, Msg(f"tomllib 로 읽었습니다: {content.strip().replace(chr(10), ', ')}",
                             f"read with tomllib: {content.strip().replace(chr(10), ', ')}"))
        self._write(plan_write(self.target, self.tk("parsed.txt"), content.encode()), r)
        return r

    def _check_5(self) -> list[Problem]:
        content, runtimes = self._parsed()
        eff = self.effective()
        problems = []
        for name in (default_runtime_name(eff.data, eff.version), self.p.runtime_name):
            if name not in runtimes:
                listed = ", ".join(runtimes) or "-"
                problems.append(Problem(Msg(f"tomllib 로 읽은 런타임({listed}) 중에 {name} 가 없습니다.",
                                            f"the runtimes tomllib reads ({listed}) do not include {name}."),
                                        Msg(f"runtimes.{name} 테이블을 추가하세요 (2단계).", f"add the runtimes.{name} table (step 2)."),
                                        self.p.config_path))
        return problems + self._expect_file(self.tk("parsed.txt"), content)

    # --- 6: the CDI spec -----------------------------------------------------------------------------

    def _act_6(self) -> StepResult:
        spec_path = self.p.cdi_spec
        text = self._read_text(spec_path)
        r = self._new(6, Msg(f"CDI 스펙이 이미 있어 한 바이트도 바꾸지 않았습니다: {spec_path}",
                             f"the CDI spec already exists and was left byte-for-byte alone: {spec_path}"))
        if text is None:
            ensure_dir(self.target, posixpath.dirname(spec_path), dry_run=self.p.check_only)
            text = cdi.build_minimal_spec()
            r.message = Msg(f"최소 CDI 스펙을 만들었습니다: {spec_path}", f"wrote a minimal CDI spec: {spec_path}")
            if self.p.check_only:
                r.problems.append(Problem(Msg(f"CDI 스펙이 없습니다: {spec_path}", f"the CDI spec is missing: {spec_path}"),
                                          Msg("nvidia-ctk cdi generate --output=" + spec_path,
                                              "nvidia-ctk cdi generate --output=" + spec_path), spec_path))
            self._write(plan_write(self.target, spec_path, text.encode(), mode=0o644), r)
        else:
            r.files.append(self._file(spec_path, "read", text.encode()))
            problems = self._spec_problems(text)
            if problems:
                r.status, r.message = FAILED, problems[0].what
                r.problems += problems
                r.notes.append(Msg("기존 스펙은 추측으로 고치지 않고 그대로 둡니다.", "the existing spec is not guessed at: it is left as it is."))
                return r
        keys = cdi.top_level_keys(text)
        self._write(plan_write(self.target, self.tk("cdi-keys.txt"), toolkit.cdi_keys_txt(keys).encode()), r)
        return r

    def _spec_problems(self, text: str) -> list[Problem]:
        try:
            doc = cdi.load_spec(text, self.p.cdi_spec)
        except RunbookError as exc:
            return [Problem.from_error(exc)]
        return cdi.spec_problems(doc, self.p.cdi_spec, text)

    def _check_6(self) -> list[Problem]:
        text = self._read_text(self.p.cdi_spec)
        if text is None:
            return [Problem(Msg(f"CDI 스펙이 없습니다: {self.p.cdi_spec}", f"the CDI spec is missing: {self.p.cdi_spec}"),
                            Msg("nvidia-ctk cdi generate --output=" + self.p.cdi_spec,
                                "nvidia-ctk cdi generate --output=" + self.p.cdi_spec), self.p.cdi_spec)]
        problems = self._spec_problems(text)
        if problems:
            return problems
        return self._expect_file(self.tk("cdi-keys.txt"), toolkit.cdi_keys_txt(cdi.top_level_keys(text)))

    # --- 7: the RuntimeClass -------------------------------------------------------------------------

    def _act_7(self) -> StepResult:
        path = self.tk("runtimeclass.yaml")
        r = self._new(7, Msg(f"RuntimeClass {self.p.runtime_name} (handler {self.p.runtime_name})",
                             f"RuntimeClass {self.p.runtime_name} (handler {self.p.runtime_name})"))
        self._write(plan_write(self.target, path, runtimeclass.build_runtimeclass(self.p.runtime_name).encode()), r)
        return r

    def _check_7(self) -> list[Problem]:
        path = self.tk("runtimeclass.yaml")
        text = self._read_text(path)
        if text is None:
            return [Problem(Msg(f"{path} 가 없습니다.", f"{path} is missing."),
                            Msg(f"apiVersion: node.k8s.io/v1, kind: RuntimeClass, metadata.name: {self.p.runtime_name}, "
                                f"handler: {self.p.runtime_name}",
                                f"apiVersion: node.k8s.io/v1, kind: RuntimeClass, metadata.name: {self.p.runtime_name}, "
                                f"handler: {self.p.runtime_name}"), path)]
        doc = runtimeclass.load_runtimeclass(text, path)
        eff = self.effective()
        names = sorted((get_in(eff.data, runtimes_path(eff.version)) or {}).keys())
        handler = doc.get("handler")
        problems = [Problem(w, f, path, cdi.yaml_line(text, "/" + w.en.split(" ", 1)[0].replace(".", "/")))
                    for w, f in runtimeclass.runtimeclass_problems(doc, self.p.runtime_name)
                    if handler in names or not w.en.startswith("handler")]  # the cross-check below says it better
        if handler not in names:
            problems.append(Problem(
                Msg(f"handler {handler!r} 가 containerd 설정의 런타임 {names} 에 없습니다. 이 RuntimeClass 로 뜬 파드는 "
                    "RunContainerError 로 실패합니다.",
                    f"handler {handler!r} is not one of containerd's runtimes {names}; pods using this RuntimeClass "
                    "fail with RunContainerError."),
                Msg(f"handler: {self.p.runtime_name} 로 적고, 설정에 runtimes.{self.p.runtime_name} 이 있는지 확인하세요.",
                    f"write handler: {self.p.runtime_name} and make sure the config has runtimes.{self.p.runtime_name}."),
                path, cdi.yaml_line(text, "/handler")))
        return problems

    # --- 8: report.txt -------------------------------------------------------------------------------

    def _report(self) -> str:
        eff = self.effective()
        doc = runtimeclass.load_runtimeclass(self._read_text(self.tk("runtimeclass.yaml")) or "", self.tk("runtimeclass.yaml"))
        handler = doc.get("handler")
        runtimes = get_in(eff.data, runtimes_path(eff.version)) or {}
        name = handler if handler in runtimes else self.p.runtime_name
        table = runtimes.get(name) if isinstance(runtimes.get(name), dict) else {}
        options = table.get("options") if isinstance(table.get("options"), dict) else {}
        return toolkit.report_txt(eff.version, name if name in runtimes else "", table.get("runtime_type"),
                                  options.get("SystemdCgroup"), handler if handler is not None else "")

    def _act_8(self) -> StepResult:
        content = self._report()
        r = self._new(8, Msg(content.strip().replace("\n", ", "), content.strip().replace("\n", ", ")))
        self._write(plan_write(self.target, self.tk("report.txt"), content.encode()), r)
        return r

    def _check_8(self) -> list[Problem]:
        return self._expect_file(self.tk("report.txt"), self._report())

    # --- 9: what containerd itself reads (runbook_lib/containerd/ask.py) ------------------------------

    def _act_9(self) -> StepResult:
        r, self._reading = ask.act(self.p, self.target, self._new(9, Msg("", "")))
        return r

    def _compare(self) -> tuple[list[tuple], list[Problem]]:
        try:
            eff = self.effective()
            written = get_in(eff.data, runtime_path(eff.version, self.p.runtime_name))
            file_default = default_runtime_name(eff.data, eff.version)
        except RunbookError:
            written, file_default = None, None
        return ask.compare(self._reading, self.p, written if isinstance(written, dict) else None, file_default)

    def _check_9(self) -> list[Problem]:
        return self._compare()[1] if getattr(self, "_reading", None) else []


__all__ = ["Runbook", "StepFailed", "TITLES", "WriteError", "load_toml"]


def _show_table(table: dict, prefix: str = "") -> str:
    lines = []
    for k, v in table.items():
        if isinstance(v, dict):
            lines.append(_show_table(v, f"{prefix}{k}."))
        else:
            from .containerd.render import value
            lines.append(f"{prefix}{k} = {value(v)}")
    return "\n".join(line for line in lines if line)
