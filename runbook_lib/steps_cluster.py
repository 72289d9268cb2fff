"""Steps 6 and 7: what GPU pods use besides containerd. The CDI spec (kept byte-for-byte when it exists) and
the RuntimeClass whose handler must name one of containerd's runtimes.

A mixin of steps.Runbook.
"""

from __future__ import annotations

import posixpath

from . import cdi, runtimeclass, toolkit
from .containerd.tables import get_in
from .containerd.versions import runtimes_path
from .errors import RunbookError
from .messages import Msg
from .result import FAILED, Problem, StepResult
from .safe_write import ensure_dir, plan_write


class ClusterSteps:
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
