"""The runbook's steps: one Runbook object runs them. Each step acts (apply mode writes, check mode only plans) and
is then confirmed by reading the files back from disk; both feed one StepResult.

Apply and check share every line of this code: check mode is "plan without writing", as Ansible's is. This
module has what every step shares (the lock, running and confirming a step, writes, the effective config);
the steps themselves are in steps_containerd.py (1-3, 9), steps_toolkit.py (4, 5, 8) and steps_cluster.py
(6, 7), as mixins of Runbook.
"""

from __future__ import annotations

import itertools
import posixpath

from .containerd import ask
from .containerd.edit import RuntimeWanted
from .containerd.effective import Effective, load_effective
from .containerd.load import load_toml
from .containerd.tables import get_in
from .containerd.versions import runtime_path
from .errors import RunbookError, WriteError
from .lock import RootLock
from .messages import Msg
from .params import Params
from .result import CHANGED, FAILED, PASSED, SKIPPED, UNCHANGED, Problem, StepResult
from .safe_write import WritePlan, commit, read_bytes, sha256, sweep_stale_temps
from .steps_cluster import ClusterSteps
from .steps_containerd import ContainerdSteps
from .steps_toolkit import ToolkitSteps
from .target import Target

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


class Runbook(ContainerdSteps, ToolkitSteps, ClusterSteps):
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
