"""Steps 1-3 and 9: containerd's own config. Folders and the base config, the runtime table with its options
(one atomic edit, in place or as a drop-in), reading the options back, and asking containerd itself.

A mixin of steps.Runbook: it uses the runbook's parameters (self.p), target, writes and effective config.
"""

from __future__ import annotations

import posixpath
from importlib import resources

from .containerd import ask, diagnose, repair
from .containerd.edit import RuntimeWanted, default_runtime_name, plan_runtime, template_runtime
from .containerd.effective import Effective, load_effective
from .containerd.load import load_toml
from .containerd.tables import get_in
from .containerd.versions import EMPTY_FILE_VERSION, RUNTIME_TYPE, runtime_path
from .errors import RunbookError
from .messages import Msg
from .result import CHANGED, FAILED, Problem, StepResult
from .safe_write import ensure_dir, plan_write, read_bytes, sha256


class ContainerdSteps:
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
